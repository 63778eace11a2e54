extension EntityStore: Equatable {
  /// Whether both hold equal entities in the same order; recorded changes are ignored.
  ///
  /// - Complexity: O(1) when the counts differ or both hold the same storage (a copy, or the
  ///   same store with its changes drained since); else O(*n*), where *n* is the number of
  ///   entities.
  public static func == (lhs: EntityStore, rhs: EntityStore) -> Bool {
    guard lhs.count == rhs.count else { return false }
    // NB: an `@Observable` state compares a property's old and new value on every set: a
    // drain of a store's changes (a persistence writer's, after every reduce) set it, and
    // compared every entity of a 10,000-card board, one dispatch at a time.
    if lhs.firstLiveSlot == rhs.firstLiveSlot, lhs.sharesSlots(with: rhs) { return true }
    return lhs.elementsEqual(rhs)
  }

  /// Whether both stores' slots are one buffer: then they hold the same entities, in order.
  private func sharesSlots(with other: EntityStore) -> Bool {
    guard slots.count == other.slots.count else { return false }
    return slots.withUnsafeBufferPointer { mine in
      other.slots.withUnsafeBufferPointer { theirs in mine.baseAddress == theirs.baseAddress }
    }
  }
}
