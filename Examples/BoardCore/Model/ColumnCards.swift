import Observation
import ReduxKit
import Synchronization

/// The cards of each column, in board order, grouped once per change of the cards: a frame
/// draws every column and a key reads the selected one, and filtering 10,000 cards for each
/// was most of a keystroke's cost.
@MainActor
final class ColumnCards {
  private let board: ReadOnlyView<BoardState>
  private var grouped: [Int: [Card]] = [:]
  /// Set by Observation when the cards change (from the mutation, on whatever thread it runs).
  private nonisolated let isStale = Atomic(true)

  init(of board: ReadOnlyView<BoardState>) {
    self.board = board
  }

  /// The cards of the column with id `columnID`, in board order.
  func cards(inColumn columnID: Int) -> [Card] {
    // NB: read even when the grouping is fresh, so that an observer of this call (a frame)
    // follows the cards.
    let cards = board.cards
    if isStale.load(ordering: .acquiring) {
      isStale.store(false, ordering: .releasing)
      grouped = withObservationTracking {
        Dictionary(grouping: board.cards, by: \.columnID)
      } onChange: { [weak self] in
        self?.isStale.store(true, ordering: .releasing)
      }
    }
    return cards.isEmpty ? [] : grouped[columnID] ?? []
  }
}
