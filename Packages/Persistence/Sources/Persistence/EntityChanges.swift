/// One writer's coalesced changes, as a flush hands them to a `persist` function that keeps
/// the store's order (see ``StateWriter/init(keyPath:persistChanges:)``).
///
/// Order is data: each write carries its entity's position, a number that increases along the
/// store's order. A backend that stores it with the row and loads rows in increasing position
/// stores the store's order, and a move, an insertion in the middle or an undo writes the rows
/// that moved and no others: the writer gives an entity a new position only when the one it
/// had no longer lies between its neighbours'. Positions are fractional (a new one is taken
/// between its neighbours') and are numbered again, all at once, in the rare case two
/// neighbours leave no room: then every entity is written.
public struct EntityChanges<Entity: Identifiable & Sendable>: Sendable where Entity.ID: Sendable {
  /// The current value of every entity written since the last flush, in the order their ids
  /// were first changed.
  public let writes: [Entity]
  /// The position of each write in the store's order, at its offset; empty when the writer
  /// does not track the order (``StateWriter/init(keyPath:persist:)``).
  public let positions: [Double]
  /// The ids deleted since the last flush (and not inserted again), in the order they were
  /// first changed.
  public let deletions: [Entity.ID]

  /// Creates a batch of changes.
  ///
  /// - Parameters:
  ///   - writes: The entities to store.
  ///   - positions: Their positions in the store's order, at their offsets, or none.
  ///   - deletions: The ids to remove.
  public init(writes: [Entity], positions: [Double] = [], deletions: [Entity.ID]) {
    precondition(
      positions.isEmpty || positions.count == writes.count,
      "\(positions.count) positions for \(writes.count) writes")
    self.writes = writes
    self.positions = positions
    self.deletions = deletions
  }
}
