import Foundation
import Observation
package import ReduxKit

/// Everything the board keeps: its columns and cards, persisted; and what the undo history
/// restores.
@MainActor
@Observable
package final class BoardState: UndoableState {
  package var columns: EntityStore<Column>
  package var cards: EntityStore<Card>
  package var undoHistory = UndoHistory<Snapshot>(capacity: 100)

  /// What undo restores: both stores, copied for free (copy-on-write).
  /// Codable, so that DevTools records it and travels back to it.
  package struct Snapshot: Sendable, Codable {
    var columns: EntityStore<Column>
    var cards: EntityStore<Card>
  }

  package var undoSnapshot: Snapshot { Snapshot(columns: columns, cards: cards) }

  /// Restores through `restore(from:)`, which records the difference as changes: the undo is
  /// saved and observed like any edit.
  package func restoreUndoSnapshot(_ snapshot: Snapshot) {
    columns.restore(from: snapshot.columns)
    cards.restore(from: snapshot.cards)
  }

  /// The board `snapshot` holds (a DevTools recomputation starts from one).
  convenience init(restoring snapshot: Snapshot) {
    self.init(columns: snapshot.columns, cards: snapshot.cards)
  }

  init(columns: EntityStore<Column>, cards: EntityStore<Card>) {
    self.columns = columns
    self.cards = cards
  }

  /// The columns a new board starts with.
  static let defaultColumns = [
    Column(id: 1, name: "Todo"), Column(id: 2, name: "Doing"), Column(id: 3, name: "Done"),
  ]
}

extension ReadOnlyView<BoardState> {
  /// The column named `name`, compared without case.
  func column(named name: String) -> Column? {
    self.columns.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
  }

}
