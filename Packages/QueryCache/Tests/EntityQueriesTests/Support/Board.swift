import EntityTracking
import Observation
import ReduxCore
import ReduxCoreTesting

/// A board's state in a ReduxCore store: its cards.
@MainActor @Observable
final class BoardState: ReduxState {
  var cards: EntityStore<Card>

  init(cards: EntityStore<Card> = .board) {
    self.cards = cards
  }
}

enum BoardAction: ReduxAction {
  case add(Card)
  case move(card: Int, toColumn: Int)
  case retitle(card: Int, title: String)
  case delete(card: Int)
}

let boardReducer = AnyReducer<BoardState, BoardAction>(id: "board") { context in
  let (state, action) = context.args
  switch action {
  case .add(let card): state.cards[card.id] = card
  case .move(let id, let column): state.cards.modify(id) { $0.columnID = column }
  case .retitle(let id, let title): state.cards.modify(id) { $0.title = title }
  case .delete(let id): state.cards[id] = nil
  }
}

/// Stands in for `PersistenceMiddleware.reducer()`: drains the cards after every action, and
/// keeps what it drained.
func persistenceReducer(
  drained: CallRecorder<ChangeSet<Int>>
) -> AnyReducer<BoardState, BoardAction> {
  AnyReducer(id: "persistence") { context in
    guard context.state.cards.hasChanges else { return }
    drained.record(context.state.cards.drainChanges())
  }
}
