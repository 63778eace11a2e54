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

  /// Replaces the contents with `source`'s, in `source`'s order, recording the difference: a
  /// deletion for every id missing from `source` (in this store's order), then an upsert for
  /// every id new or changed in it (in `source`'s order). Used by undo/redo and by "revert to
  /// saved".
  ///
  /// - Parameter source: The entities to restore.
  /// - Complexity: O(*n* + *m*), where *n* and *m* are the numbers of entities in the two stores.
  public mutating func restore(from source: EntityStore) {
    for (slot, entity) in slots.enumerated() {
      if let entity, !source.contains(entity.id) { recordDeletion(entity.id, at: slot) }
    }
    var restored: [LiveSlot] = []
    restored.reserveCapacity(source.count)
    for entity in source {
      let position = positions[entity.id]
      restored.append(
        LiveSlot(
          entity: entity,
          logIndex: position.map { logIndexBySlot[$0] } ?? -1,
          recordsUpsert: position.flatMap { slots[$0] } != entity
        ))
    }
    positions = [:]
    replaceSlots(with: restored)
  }
}
