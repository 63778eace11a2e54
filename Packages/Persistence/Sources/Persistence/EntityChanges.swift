/// One writer's coalesced changes, as a flush hands them to a `persist` function that keeps
/// the store's order (see ``StateWriter/init(keyPath:persistChanges:)``).
///
/// An `EntityStore` keeps its entities in insertion order, and an entity deleted and inserted
/// again goes last. Such a move coalesces with the rest into a plain write, so `writes` alone
/// cannot say where an entity now stands; ``placedLast`` does: it names the written entities
/// that sit after every entity this batch does not write. A backend that stores them after
/// every stored row, in that order, and the other writes in place, stores the store's order.
public struct EntityChanges<Entity: Identifiable & Sendable>: Sendable where Entity.ID: Sendable {
  /// The current value of every entity written since the last flush, in the order their ids
  /// were first changed.
  public let writes: [Entity]
  /// The ids deleted since the last flush (and not inserted again), in the order they were
  /// first changed.
  public let deletions: [Entity.ID]
  /// The ids among `writes` that the store placed after every entity not written: inserted,
  /// inserted again after a deletion, or changed while already last. In the order they
  /// reached the end, which is their order in the store.
  public let placedLast: [Entity.ID]
  /// The offset in `writes` of each id of `placedLast`, when the batch comes from a writer
  /// (which knows them without hashing); `nil` for a batch made with the public initializer.
  package let placedLastOffsets: [Int]?

  /// Creates a batch of changes.
  ///
  /// - Parameters:
  ///   - writes: The entities to store.
  ///   - deletions: The ids to remove.
  ///   - placedLast: The ids among `writes` to store after every other entity, in this order.
  public init(writes: [Entity], deletions: [Entity.ID], placedLast: [Entity.ID] = []) {
    self.writes = writes
    self.deletions = deletions
    self.placedLast = placedLast
    placedLastOffsets = nil
  }

  /// Creates a batch whose `placedLast` ids are also given as offsets in `writes`.
  package init(
    writes: [Entity], deletions: [Entity.ID], placedLast: [Entity.ID], placedLastOffsets: [Int]
  ) {
    self.writes = writes
    self.deletions = deletions
    self.placedLast = placedLast
    self.placedLastOffsets = placedLastOffsets
  }
}
