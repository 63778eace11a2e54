// What README.md's EntityQueries example takes as given.
import ReduxKit

struct Card: Identifiable, Codable, Equatable, Sendable {
  var id: Int
  var title: String
  var columnID: Int
}

@MainActor @Observable
final class BoardState: ReduxState {
  var cards = EntityStore<Card>()
}

enum BoardAction: ReduxAction {
  case add(Card)
}

let client = QueryClient(clock: ContinuousClock())
let state = BoardState()
let boardReducer = AnyReducer<BoardState, BoardAction>(id: "board") { context in
  if case .add(let card) = context.action { context.state.cards[card.id] = card }
}
let persistence: PersistenceMiddleware<BoardState> = readmeUnavailable()
