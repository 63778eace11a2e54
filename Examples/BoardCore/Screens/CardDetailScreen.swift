import Observation
import ReduxKit
import TerminalIO

/// One card in full: its column, tags, due date, notes and times. `e` edits it.
struct CardDetailScreen: FeatureReducer {
  @Observable
  final class State: NavigatableState {
    typealias R = CardDetailScreen
    let cardID: Int
    var form: CardFormScreen.State?

    init(cardID: Int) {
      self.cardID = cardID
    }
  }

  enum Action: Sendable {
    case key(Key)
  }

  let session: BoardSession

  func reduce(into state: State, action: Action) -> Procedure<Action, State> {
    guard case .key(let key) = action else { return .none }
    switch key {
    case .character("e"), .enter:
      guard let card = session.board.cards[state.cardID] else { return .none }
      state.form = CardFormScreen.State(editing: card, draft: session.lostEdits[card.id])
      route(
        childState: \.form, to: { _ in nil }, reducer: CardFormScreen(session: session),
        routeStyle: .present, with: state)
    case .escape, .backspace, .left, .character("q"), .character("h"):
      pop(with: state)
    default:
      break
    }
    return .none
  }
}
