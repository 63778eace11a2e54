// What README.md's undo example takes as given (it declares BoardState itself).
import ReduxKit

struct Card: Identifiable, Codable, Equatable, Sendable {
  var id: Int
  var title: String
}

enum BoardAction: ReduxAction {
  case add(Card)
  case undo, redo

  var undoIntent: UndoIntent {
    switch self {
    case .add: .record
    case .undo: .undo
    case .redo: .redo
    }
  }
}

let boardReducer = AnyReducer<BoardState, BoardAction>(id: "board") { context in
  if case .add(let card) = context.action { context.state.cards[card.id] = card }
}
let persistence: PersistenceMiddleware<BoardState> = readmeUnavailable()
