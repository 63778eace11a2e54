package import Logging
import ReduxKit
package import TerminalIO

/// A screen the full screen shows, with its view model.
@MainActor
enum BoardScreenModel {
  case board(ViewModelOf<BoardScreen>)
  case detail(ViewModelOf<CardDetailScreen>)
  case form(ViewModelOf<CardFormScreen>)
  case search(ViewModelOf<SearchScreen>)
  case help(ViewModelOf<HelpScreen>)

  /// Sends `key` to the screen; the task ends when what the key started has (a command, not a
  /// debounced search, which is held).
  func send(_ key: Key) -> Task<Void, Never> {
    switch self {
    case .board(let viewModel): viewModel.send(.key(key))
    case .detail(let viewModel): viewModel.send(.key(key))
    case .form(let viewModel): viewModel.send(.key(key))
    case .search(let viewModel): viewModel.send(.key(key))
    case .help(let viewModel): viewModel.send(.key(key))
    }
  }
}

/// The full screen's screens: the board at the root, and the screens it routes to through a
/// `Navigator`, bottom first.
@MainActor
package final class BoardNavigation {
  let root: ViewModelOf<BoardScreen>
  let navigator: Navigator<BoardScreenModel>
  private let session: BoardSession

  package init(
    session: BoardSession, clock: some Clock<Duration> = ContinuousClock(), logger: Logger
  ) {
    self.session = session
    root = ViewModelOf<BoardScreen>(
      initialState: BoardScreen.State(), reducer: BoardScreen(session: session), clock: clock,
      logger: logger)
    navigator = Navigator(flow: Self.flow(session: session), root: root, logger: logger)
  }

  /// The screen on top: the one keys go to and the frame shows.
  var top: BoardScreenModel {
    navigator.screens.last ?? .board(root)
  }

  /// Sends `key` to the top screen and waits for what it started.
  package func handle(_ key: Key) async {
    await top.send(key).value
  }

  /// Tells the board how many cards a column shows at the terminal's new size.
  package func resized(to size: TerminalSize) {
    root.send(.visibleRows(BoardBody.pageRows(at: size)))
  }

  /// Whether `q` was pressed on the board.
  var wantsToQuit: Bool { root.state.wantsToQuit }

  /// Shows the card of `link` over the board, once the card is known to exist: a link to a
  /// card that is not there changes nothing.
  func open(_ link: DeepLink) throws {
    guard session.board.cards[link.cardID] != nil else {
      throw CommandError.noSuchCard(link.cardID)
    }
    root.state.detail = CardDetailScreen.State(cardID: link.cardID)
    try navigator.open([RouteRecord(CardDetailScreen.State.self)])
  }

  /// Every screen, and the route a deep link takes (`card/42`: the board, then a card).
  private static func flow(session: BoardSession) -> NavigationFlow<BoardScreenModel> {
    NavigationFlow<BoardScreenModel>(stateTypeList: [
      BoardScreen.State.self, CardFormScreen.State.self, SearchScreen.State.self,
      HelpScreen.State.self,
    ]) { viewModel in
      switch viewModel {
      case let board as ViewModelOf<BoardScreen>: .board(board)
      case let detail as ViewModelOf<CardDetailScreen>: .detail(detail)
      case let form as ViewModelOf<CardFormScreen>: .form(form)
      case let search as ViewModelOf<SearchScreen>: .search(search)
      case let help as ViewModelOf<HelpScreen>: .help(help)
      default: nil
      }
    }
    .registering(
      \BoardScreen.State.detail, event: { _ in nil }, reducer: CardDetailScreen(session: session),
      // NB: `open(_:)` sets the card's state before following the link: this is not reached.
      makeState: { CardDetailScreen.State(cardID: 0) })
  }
}
