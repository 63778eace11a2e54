extension EntityStore {
  // MARK: - Bulk replacement

  /// Merges entities loaded from elsewhere without recording changes (hydration). Entities only
  /// in `other` are appended in `other`'s order; for an id in both, `combine` returns the value
  /// to keep.
  ///
  /// - Parameters:
  ///   - other: The entities to merge in.
  ///   - combine: Given the entity already stored (`existing`) and the one from `other`
  ///     (`incoming`), returns the one to keep. It must keep the id.
  /// - Complexity: O(*m*), where *m* is the number of entities in `other`.
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

  /// Replaces the contents with `source`'s, recording the difference: a deletion for every id
  /// missing from `source`, an upsert for every id new or changed in it. Used by undo/redo and
  /// by "revert to saved".
  ///
  /// - Complexity: O(*n* + *m*), the sizes of the two stores.
  public mutating func restore(from source: EntityStore) {
    for case let entity? in slots where !source.contains(entity.id) {
      recordDeletion(entity.id)
    }
    let pending = changes.upserts
    var restored: [(entity: Entity, upserted: Bool)] = []
    restored.reserveCapacity(source.count)
    for entity in source {
      let changed = self[entity.id] != entity
      if changed, !deletedIDs.isEmpty { deletedIDs.remove(entity.id) }
      restored.append((entity, changed || pending.contains(entity.id)))
    }
    positions = [:]
    replaceSlots(with: restored)
  }
}
