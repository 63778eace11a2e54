extension EntityStore {
  /// Ids changed since the last ``resetChanges()`` or ``drainChanges()``.
  ///
  /// - Complexity: O(*c*), where *c* is the number of changes.
  @inlinable
  public var changes: ChangeSet<ID> {
    var upserts = Set<ID>(minimumCapacity: upsertedSlotList.count)
    for slot in upsertedSlotList {
      // A flagged slot deleted since holds a tombstone: its id is in `deletedIDs` instead.
      if let entity = slots[slot] { upserts.insert(entity.id) }
    }
    return ChangeSet(upserts: upserts, deletions: deletedIDs)
  }

  /// Forgets the recorded changes.
  ///
  /// - Complexity: O(*c*), where *c* is the number of changes.
  @inlinable
  public mutating func resetChanges() {
    for slot in upsertedSlotList where slot < upsertedSlots.count { upsertedSlots[slot] = false }
    upsertedSlotList.removeAll(keepingCapacity: true)
    deletedIDs = []
    deletionLog.removeAll(keepingCapacity: true)
  }

  /// Whether any change was recorded since the last ``resetChanges()`` or drain.
  ///
  /// - Complexity: O(1).
  @inlinable
  public var hasChanges: Bool { !upsertedSlotList.isEmpty || !deletedIDs.isEmpty }

  /// Returns the recorded changes and forgets them, in one step (for persistence).
  ///
  /// - Complexity: O(*c*), where *c* is the number of changes; never O(*n*).
  @inlinable
  public mutating func drainChanges() -> ChangeSet<ID> {
    defer { resetChanges() }
    return changes
  }

  /// Returns the current value of every upserted entity and every deleted id, each in the order
  /// they were first changed since the last drain, and forgets the changes. This is the drain
  /// persistence uses: its writes come out in a deterministic order.
  ///
  /// - Complexity: O(*c*), where *c* is the number of changes; never O(*n*).
  @inlinable
  public mutating func drainOrderedChanges() -> (upserts: [Entity], deletions: [ID]) {
    defer { resetChanges() }
    var upserts: [Entity] = []
    upserts.reserveCapacity(upsertedSlotList.count)
    for slot in upsertedSlotList {
      if let entity = slots[slot] { upserts.append(entity) }
    }
    return (upserts, orderedDeletions)
  }

  // MARK: - Recording

  @inlinable
  mutating func recordUpsert(_ id: ID, at slot: Int) {
    if !deletedIDs.isEmpty { deletedIDs.remove(id) }
    if !upsertedSlots[slot] {
      upsertedSlots[slot] = true
      upsertedSlotList.append(slot)
    }
  }

  @inlinable
  mutating func recordDeletion(_ id: ID) {
    // NB: an upsert flag left on the emptied slot is skipped when changes are read.
    guard deletedIDs.insert(id).inserted else { return }
    deletionLog.append(id)
    if deletionLog.count > 2 * deletedIDs.count + 32 { pruneDeletionLog() }
  }

  /// Drops the ids re-inserted since their deletion, so the log stays O(deletions).
  @usableFromInline
  mutating func pruneDeletionLog() {
    deletionLog = orderedDeletions
  }

  /// `deletedIDs` in deletion order, each once.
  @inlinable
  var orderedDeletions: [ID] {
    var seen = Set<ID>(minimumCapacity: deletedIDs.count)
    var ordered: [ID] = []
    ordered.reserveCapacity(deletedIDs.count)
    for id in deletionLog where deletedIDs.contains(id) && seen.insert(id).inserted {
      ordered.append(id)
    }
    return ordered
  }
}
