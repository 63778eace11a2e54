extension EntityStore {
  /// The ids changed since the last ``resetChanges()`` or ``drainChanges()``, in the order they
  /// first changed, each with its last operation.
  ///
  /// Every id the change set upserts is in the store: its current value is `self[id]`.
  ///
  /// - Complexity: O(*c*), where *c* is the number of changed ids; never O(*n*).
  @inlinable
  public var changes: ChangeSet<ID> {
    var entries: [ChangeSet<ID>.Change] = []
    entries.reserveCapacity(changeLog.count)
    var deletedIDs: [ID?] = []
    if !deletionLogIndex.isEmpty {
      deletedIDs = Array(repeating: nil, count: changeLog.count)
      for (id, index) in deletionLogIndex { deletedIDs[index] = id }
    }
    // NB: indices, not `enumerated()`: run unspecialized (a drain from generic code, as
    // Persistence's writers do), the enumerated iterator looked up its generic metadata for
    // every entry.
    for index in changeLog.indices {
      let slot = changeLog[index]
      if slot >= 0 {
        guard let id = slots[slot]?.id else {
          preconditionFailure("Change log entry \(index) upserts the tombstone in slot \(slot)")
        }
        entries.append(.upsert(id))
      } else {
        guard let id = deletedIDs[index] else {
          preconditionFailure("Change log entry \(index) is a deletion of no id")
        }
        entries.append(.deletion(id))
      }
    }
    return ChangeSet(uniqueChanges: entries)
  }

  /// Whether any change was recorded since the last ``resetChanges()`` or ``drainChanges()``.
  @inlinable
  public var hasChanges: Bool { !changeLog.isEmpty }

  /// Returns the recorded changes and forgets them, in one step: the one drain, for persistence.
  ///
  /// ```swift
  /// let changes = cards.drainChanges()
  /// let writes = changes.upserts.map { cards[$0]! }   // an upserted id is always stored
  /// let deletions = changes.deletions
  /// ```
  ///
  /// Folding the change sets of successive drains with ``ChangeSet/formUnion(_:)`` gives the
  /// change set a single drain at the end would have returned.
  ///
  /// - Returns: The ids changed since the last drain or reset, in first-change order.
  /// - Complexity: O(*c*), where *c* is the number of changed ids; never O(*n*).
  @inlinable
  public mutating func drainChanges() -> ChangeSet<ID> {
    defer { resetChanges() }
    return changes
  }

  /// Forgets the recorded changes.
  ///
  /// - Complexity: O(*c*), where *c* is the number of changed ids.
  @inlinable
  public mutating func resetChanges() {
    for slot in changeLog where slot >= 0 { logIndexBySlot[slot] = -1 }
    changeLog.removeAll(keepingCapacity: true)
    deletionLogIndex = [:]
  }

  // MARK: - Recording

  /// Records an upsert of the entity in `slot`: a new change goes last, and an id deleted
  /// earlier keeps its place in the log.
  @inlinable
  mutating func recordUpsert(_ id: ID, at slot: Int) {
    guard logIndexBySlot[slot] < 0 else { return }
    if !deletionLogIndex.isEmpty, let index = deletionLogIndex.removeValue(forKey: id) {
      changeLog[index] = slot
      logIndexBySlot[slot] = index
    } else {
      logIndexBySlot[slot] = changeLog.count
      changeLog.append(slot)
    }
  }

  /// Records the deletion of the entity that was in `slot` (now a tombstone or about to be
  /// dropped): an upsert of it becomes a deletion in its place; otherwise a new change goes last.
  @inlinable
  mutating func recordDeletion(_ id: ID, at slot: Int) {
    let index = logIndexBySlot[slot]
    if index >= 0 {
      logIndexBySlot[slot] = -1
      changeLog[index] = -1
      deletionLogIndex[id] = index
    } else {
      // NB: an id already logged as deleted (merged back in since, unrecorded) keeps its place.
      let end = changeLog.count
      if Self.claim(&deletionLogIndex[id, default: end]) == end {
        changeLog.append(-1)
      }
    }
  }
}
