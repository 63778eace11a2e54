extension EntityStore {
  /// Merges entities loaded from elsewhere without recording changes (hydration). Entities only
  /// in `other` are appended in `other`'s order; for an id in both, `combine` returns the value
  /// to keep.
  ///
  /// A change recorded before stays as it is: an id whose deletion is pending and that `other`
  /// brings back stays recorded as a deletion.
  ///
  /// - Parameters:
  ///   - other: The entities to merge in.
  ///   - combine: Given the entity already stored (`existing`) and the one from `other`
  ///     (`incoming`), returns the one to keep. It must keep the id. If it throws, the entities
  ///     merged before stay merged.
  /// - Throws: What `combine` throws.
  /// - Complexity: O(*m*) amortized, where *m* is the number of entities in `other`.
  public mutating func merge(
    from other: EntityStore,
    uniquingIDsWith combine: (_ existing: Entity, _ incoming: Entity) throws -> Entity
  ) rethrows {
    for incoming in other {
      if let position = positions[incoming.id], let existing = slots[position] {
        let kept = try combine(existing, incoming)
        precondition(kept.id == incoming.id, "merge kept \(kept.id) for id \(incoming.id)")
        slots[position] = kept
      } else {
        store(incoming)
      }
    }
  }

  /// Deletes the entity with this id without recording a deletion: the hydration counterpart of
  /// ``merge(from:uniquingIDsWith:)``, for an entity deleted elsewhere (by another instance
  /// sharing the database, say) that must not be deleted again.
  ///
  /// An upsert of the id recorded before cannot stay (the entity it names is gone): it becomes a
  /// recorded deletion. A deletion recorded before stays.
  ///
  /// - Parameter id: The id of the entity to delete.
  /// - Returns: The deleted entity, if there was one.
  /// - Complexity: O(1) amortized.
  @discardableResult
  public mutating func removeWithoutRecording(_ id: ID) -> Entity? {
    guard let position = positions.removeValue(forKey: id) else { return nil }
    let removed = slots[position].take()
    if logIndexBySlot[position] >= 0 { recordDeletion(id, at: position) }
    dropTombstones(around: position)
    compactIfSparse()
    return removed
  }

  /// Replaces the contents with `source`'s, in `source`'s order, recording the difference as
  /// ordinary changes: what deleting, changing and moving the fewest entities one by one would
  /// record. It is how undo, redo and "revert to saved" put an earlier snapshot back; assigning
  /// the snapshot instead would bring back the changes recorded in it, not the difference.
  ///
  /// ```swift
  /// // cards holds the cards 1, 2 and 3, in that order
  /// let saved = cards                  // a snapshot: O(1), the storage is shared
  /// cards[3] = nil
  /// cards.modify(1) { $0.title = "Edited" }
  /// _ = cards.drainChanges()           // persisted
  /// cards.restore(from: saved)         // cards == saved, in order
  /// Array(cards.changes)               // [.upsert(1), .upsert(3)]: edit and deletion undone
  /// ```
  ///
  /// It records:
  /// - a deletion for every id missing from `source`, in this store's order;
  /// - then, in `source`'s order, an upsert for every entity of `source` that is new here, or
  ///   whose value differs, or that moved. The entities that stay are the most that can: a
  ///   longest run of `source` found here in the same relative order (of the longest runs, the
  ///   one patience sorting finds); every other entity of `source` has moved.
  ///
  /// So undoing one move records one upsert, however long the store: a backend that stores
  /// each entity's place in the order (PersistenceSQLite's and PersistencePostgres's tables
  /// keep a position per row) writes that one row. An id changed before keeps its place in
  /// ``changes``. Restoring equal entities in the same order records nothing.
  ///
  /// The changes recorded in `source` are ignored.
  ///
  /// - Parameter source: The entities to restore, in the order to restore them in.
  /// - Complexity: O(*n* + *m* log *m*), where *n* and *m* are the numbers of entities in the
  ///   two stores.
  public mutating func restore(from source: EntityStore) {
    // NB: indices, not `enumerated()`, whose iterator, run unspecialized, looked up its generic
    // metadata for every entity.
    for slot in slots.indices {
      if let entity = slots[slot], !source.contains(entity.id) {
        recordDeletion(entity.id, at: slot)
      }
    }
    // NB: slots grow with the order, so the entities that stay are a longest run of `source`'s
    // entities found here at increasing slots.
    var foundSlots: [Int] = []
    foundSlots.reserveCapacity(source.count)
    for entity in source { foundSlots.append(positions[entity.id] ?? -1) }
    let stays = Self.longestIncreasingRun(foundSlots)
    var restored: [LiveSlot] = []
    restored.reserveCapacity(source.count)
    var offset = 0
    for entity in source {
      defer { offset += 1 }
      let position = foundSlots[offset]
      guard position >= 0 else {
        restored.append(LiveSlot(entity: entity, logIndex: -1, recordsUpsert: true))
        continue
      }
      restored.append(
        LiveSlot(
          entity: entity,
          logIndex: logIndexBySlot[position],
          recordsUpsert: !stays[offset] || slots[position] != entity
        ))
    }
    positions = [:]
    replaceSlots(with: restored)
  }

  /// Which of `values` form a longest strictly increasing run (a subsequence) of the
  /// non-negative ones; negative values (entities not found) are never part of it. Of the
  /// longest runs, the one patience sorting finds: each value joins the first pile whose top is
  /// not smaller, and the run is read back from the last pile.
  ///
  /// - Complexity: O(*m* log *m*), where *m* is the number of values.
  static func longestIncreasingRun(_ values: [Int]) -> [Bool] {
    // NB: `tops[k]` is the offset of the smallest value ending an increasing run of k + 1;
    // `previous[i]` the offset before `i` in the run ending at `i`.
    var tops: [Int] = []
    var previous = [Int](repeating: -1, count: values.count)
    for offset in values.indices where values[offset] >= 0 {
      let value = values[offset]
      var low = 0
      var high = tops.count
      while low < high {
        let middle = (low + high) / 2
        if values[tops[middle]] < value { low = middle + 1 } else { high = middle }
      }
      if low > 0 { previous[offset] = tops[low - 1] }
      if low == tops.count { tops.append(offset) } else { tops[low] = offset }
    }
    var stays = [Bool](repeating: false, count: values.count)
    var offset = tops.last ?? -1
    while offset >= 0 {
      stays[offset] = true
      offset = previous[offset]
    }
    return stays
  }

  /// Reorders the entities by `areInIncreasingOrder` without recording a change (hydration):
  /// the order another writer gave them (a backend's stored positions, say), which must not be
  /// written back. The sort is stable. Changes recorded before keep their place.
  ///
  /// - Parameter areInIncreasingOrder: A strict weak ordering of entities. If it throws, the
  ///   store is left unchanged.
  /// - Throws: What `areInIncreasingOrder` throws.
  /// - Complexity: O(*n* log *n*), where *n* is the number of entities.
  public mutating func sortWithoutRecording(
    by areInIncreasingOrder: (Entity, Entity) throws -> Bool
  ) rethrows {
    var sorted = liveSlots
    try sorted.sort { try areInIncreasingOrder($0.entity, $1.entity) }
    replaceSlots(with: sorted)
  }
}
