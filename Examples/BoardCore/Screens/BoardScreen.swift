import Observation
import ReduxKit
import TerminalIO

/// The board screen, the root: columns side by side, a selected card, and the keys that
/// change the board or open the other screens.
struct BoardScreen: FeatureReducer {
  @Observable
  final class State: NavigatableState {
    typealias R = BoardScreen
    /// The selected column, as an index into the board's columns.
    var column = 0
    /// The selected card, as an index into the selected column's cards.
    var row = 0
    /// How many cards a column shows at the terminal's size: what Page Down moves by.
    var pageRows = 10
    /// A question the next key answers.
    var prompt: Prompt?
    /// Why the last key did nothing (a card key on an empty column), until the next key.
    var notice: String?
    /// Set by `q`: the full screen ends after this key.
    var wantsToQuit = false
    var detail: CardDetailScreen.State?
    var form: CardFormScreen.State?
    var search: SearchScreen.State?
    var help: HelpScreen.State?
  }

  /// A question about the selected card.
  enum Prompt: Equatable {
    case confirmDelete(card: Int)
    case moveCard(card: Int)
  }

  enum Action: Sendable {
    case key(Key)
    case form(CardFormScreen.Event)
    /// The terminal's size changed: a column now shows `rows` cards.
    case visibleRows(Int)
    /// Selects the card with this id wherever it is now (after a move).
    case select(card: Int)
  }

  let session: BoardSession

  func reduce(into state: State, action: Action) -> Procedure<Action, State> {
    let key: Key
    switch action {
    case .form(.saved):
      // NB: a new card goes last in its column: select it (the row is clamped to the column).
      if state.form?.isNewCard == true { state.row = .max }
      return .none
    case .visibleRows(let rows):
      state.pageRows = max(rows, 1)
      return .none
    case .select(let id):
      select(card: id, in: state)
      return .none
    case .key(let pressed):
      key = pressed
    }
    if let prompt = state.prompt {
      state.prompt = nil
      return answer(prompt, with: key)
    }
    let selection = BoardSelection(state, on: session)
    let lastRow = max(selection.cards.count - 1, 0)
    state.notice = nil
    if selection.card == nil,
      [.enter, .character("e"), .character("m"), .character("d")].contains(key)
    {
      state.notice =
        selection.columnName.map { "no card in \($0) to \(Self.verb(of: key)): n adds one" }
        ?? "no column: add one in line mode (board --lines)"
      return .none
    }
    switch key {
    case .left, .character("h"):
      state.column = max(selection.column - 1, 0)
    case .right, .character("l"):
      state.column = min(selection.column + 1, max(session.board.columns.count - 1, 0))
    case .up, .character("k"):
      state.row = max(selection.row - 1, 0)
    case .down, .character("j"):
      state.row = min(selection.row + 1, lastRow)
    case .pageDown, .control("f"):
      state.row = min(selection.row + state.pageRows, lastRow)
    case .pageUp, .control("b"):
      state.row = max(selection.row - state.pageRows, 0)
    case .home, .character("g"):
      state.row = 0
    case .end, .character("G"):
      state.row = lastRow
    case .character("n"):
      guard let column = selection.columnName else { return .none }
      state.form = CardFormScreen.State(newCardIn: column)
      route(childState: \.form, to: Action.form, reducer: form, routeStyle: .present, with: state)
    case .enter:
      guard let card = selection.card else { return .none }
      state.detail = CardDetailScreen.State(cardID: card.id)
      route(childState: \.detail, to: { _ in nil }, reducer: detail, with: state)
    case .character("e"):
      guard let card = selection.card else { return .none }
      state.form = CardFormScreen.State(editing: card, draft: session.lostEdits[card.id])
      route(childState: \.form, to: Action.form, reducer: form, routeStyle: .present, with: state)
    case .character("m"):
      if let card = selection.card { state.prompt = .moveCard(card: card.id) }
    case .character("d"):
      if let card = selection.card { state.prompt = .confirmDelete(card: card.id) }
    case .character("/"):
      state.search = SearchScreen.State()
      route(childState: \.search, to: { _ in nil }, reducer: search, with: state)
    case .character("u"):
      return run(.undo)
    case .character("r"):
      return run(.redo)
    case .character("K"), .character("T"):
      guard case .server(let replica) = session.storage, replica.conflictSummary != nil else {
        state.notice = "no conflict with the server to settle"
        return .none
      }
      return run(.resolve(card: nil, keepingMine: key == .character("K")))
    case .character("?"):
      state.help = HelpScreen.State()
      route(
        childState: \.help, to: { _ in nil }, reducer: HelpScreen(), routeStyle: .present,
        with: state)
    case .character("q"):
      state.wantsToQuit = true
    default:
      break
    }
    return .none
  }

  @MainActor
  private func answer(_ prompt: Prompt, with key: Key) -> Procedure<Action, State> {
    switch (prompt, key) {
    case (.confirmDelete(let card), .character("y")):
      return run(.delete(card: card))
    case (.moveCard(let card), .character(let digit)):
      guard let number = digit.wholeNumberValue, number >= 1,
        number <= session.board.columns.count
      else { return .none }
      let column = Array(session.board.columns)[number - 1]
      return .run { send in
        guard
          !(await session.run(.move(card: card, column: column.name), waitsForSave: false))
            .isError
        else { return }
        await send(.select(card: card))
      }
    default:
      return .none  // any other key cancels
    }
  }

  /// What a card key does, in words.
  private static func verb(of key: Key) -> String {
    switch key {
    case .character("e"): "edit"
    case .character("m"): "move"
    case .character("d"): "delete"
    default: "open"
    }
  }

  /// Selects the card `id` in its column, if it is on the board.
  @MainActor
  private func select(card id: Int, in state: State) {
    let columns = Array(session.board.columns)
    guard let card = session.board.cards[id],
      let column = columns.firstIndex(where: { $0.id == card.columnID })
    else { return }
    state.column = column
    state.row = session.cards(in: columns[column]).firstIndex { $0.id == id } ?? 0
  }

  @MainActor
  private func run(_ command: Command) -> Procedure<Action, State> {
    .run { _ in await session.run(command, waitsForSave: false) }
  }

  @MainActor var detail: CardDetailScreen { CardDetailScreen(session: session) }
  @MainActor var form: CardFormScreen { CardFormScreen(session: session) }
  @MainActor var search: SearchScreen { SearchScreen(session: session) }
}

/// The selected column and card, clamped to the board as it is now (a card may have moved or
/// gone since the selection was made).
@MainActor
struct BoardSelection {
  let column: Int
  let row: Int
  let columnName: String?
  let cards: [Card]

  init(_ state: BoardScreen.State, on session: BoardSession) {
    let columns = Array(session.board.columns)
    column = min(state.column, max(columns.count - 1, 0))
    let selected = columns.isEmpty ? nil : columns[column]
    columnName = selected?.name
    cards = selected.map { session.cards(in: $0) } ?? []
    row = min(state.row, max(cards.count - 1, 0))
  }

  var card: Card? { cards.isEmpty ? nil : cards[row] }
}
