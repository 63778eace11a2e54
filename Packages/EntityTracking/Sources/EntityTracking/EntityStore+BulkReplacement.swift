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
  /// ordinary changes: what deleting, changing and moving the entities one by one would record.
  /// It is how undo, redo and "revert to saved" put an earlier snapshot back; assigning the
  /// snapshot instead would bring back the changes recorded in it, not the difference.
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
  ///   whose value differs, or that moved. The entities of the longest prefix of `source` that
  ///   are all here in the same relative order stay in place; every entity after that prefix
  ///   has moved, as deleting it and inserting it again (at the end) would move it.
  ///
  /// So the store records exactly what the equivalent edits would record: ``remove(_:)`` of
  /// each missing id, ``modify(_:_:)`` of each changed entity in the prefix, then ``remove(_:)``
  /// and ``upsert(_:)`` of each entity after it. An id changed before keeps its place in
  /// ``changes``. A backend that stores the store's order by writing the upserted entities
  /// placed last after every other row (as inserting does) therefore stores `source`'s order.
  /// Restoring equal entities in the same order records nothing.
  ///
  /// The changes recorded in `source` are ignored.
  ///
  /// - Parameter source: The entities to restore, in the order to restore them in.
  /// - Complexity: O(*n* + *m*), where *n* and *m* are the numbers of entities in the two stores.
  public mutating func restore(from source: EntityStore) {
    // NB: indices, not `enumerated()`, whose iterator, run unspecialized, looked up its generic
    // metadata for every entity.
    for slot in slots.indices {
      if let entity = slots[slot], !source.contains(entity.id) {
        recordDeletion(entity.id, at: slot)
      }
    }
    // NB: slots grow with the order, so the prefix kept in place is the run of `source`'s
    // entities found here at increasing slots.
    var isInPlace = true
    var lastSlotInPlace = -1
    var restored: [LiveSlot] = []
    restored.reserveCapacity(source.count)
    for entity in source {
      guard let position = positions[entity.id] else {
        isInPlace = false
        restored.append(LiveSlot(entity: entity, logIndex: -1, recordsUpsert: true))
        continue
      }
      if isInPlace, position > lastSlotInPlace {
        lastSlotInPlace = position
      } else {
        isInPlace = false
      }
      restored.append(
        LiveSlot(
          entity: entity,
          logIndex: logIndexBySlot[position],
          recordsUpsert: !isInPlace || slots[position] != entity
        ))
    }
    positions = [:]
    replaceSlots(with: restored)
  }
}
