extension EntityStore {
  /// Inserts `entity` at the end, or replaces the stored entity with its id in place. Records an
  /// upsert unless an equal value was already stored.
  ///
  /// - Complexity: O(1) amortized.
  @inlinable
  public mutating func upsert(_ entity: Entity) {
    // NB: one hash lookup serves both paths: the defaulted subscript inserts the key if absent.
    let end = slots.count
    let position = Self.claim(&positions[entity.id, default: end])
    if position == end {
      slots.append(entity)
      upsertedSlots.append(false)
    } else {
      if slots[position] == entity { return }
      slots[position] = entity
    }
    recordUpsert(entity.id, at: position)
  }

  @inlinable
  static func claim(_ position: inout Int) -> Int {
    position
  }

  /// Upserts every entity, in order.
  ///
  /// - Complexity: O(*m*) amortized, where *m* is the number of entities given.
  public mutating func upsert(contentsOf entities: some Sequence<Entity>) {
    for entity in entities { upsert(entity) }
  }

  /// Deletes the entity with this id and records the deletion. Does nothing for an unknown id.
  ///
  /// - Returns: The deleted entity, if there was one.
  /// - Complexity: O(1) amortized.
  @inlinable @discardableResult
  public mutating func remove(_ id: ID) -> Entity? {
    guard let position = positions.removeValue(forKey: id) else { return nil }
    let removed = slots[position]
    slots[position] = nil
    recordDeletion(id)
    compactIfSparse()
    return removed
  }

  /// Deletes the entities with these ids, recording each deletion.
  ///
  /// - Complexity: O(*m*) amortized, where *m* is the number of ids given.
  public mutating func remove(ids: some Sequence<ID>) {
    for id in ids { remove(id) }
  }

  /// Mutates the entity with this id in place. Records an upsert only if the value changed;
  /// does nothing for an unknown id.
  ///
  /// - Precondition: `transform` keeps the entity's id.
  /// - Complexity: O(1) plus the cost of `transform` and one comparison.
  @inlinable
  public mutating func modify(_ id: ID, _ transform: (inout Entity) throws -> Void) rethrows {
    guard let position = positions[id], var entity = slots[position] else { return }
    try transform(&entity)
    precondition(entity.id == id, "modify changed the id of \(id) to \(entity.id)")
    if slots[position] == entity { return }
    slots[position] = entity
    recordUpsert(id, at: position)
  }

  /// Deletes every entity that satisfies `shouldBeRemoved`, recording each deletion.
  ///
  /// - Complexity: O(*n*).
  public mutating func removeAll(where shouldBeRemoved: (Entity) throws -> Bool) rethrows {
    var kept: [(entity: Entity, upserted: Bool)] = []
    kept.reserveCapacity(slots.count)
    for (slot, entity) in slots.enumerated() {
      guard let entity else { continue }
      if try shouldBeRemoved(entity) {
        positions[entity.id] = nil
        recordDeletion(entity.id)
      } else {
        kept.append((entity, upsertedSlots[slot]))
      }
    }
    replaceSlots(with: kept)
  }

  /// Sorts the entities, recording an upsert for each entity whose position changed.
  ///
  /// - Complexity: O(*n* log *n*).
  public mutating func sort(by areInIncreasingOrder: (Entity, Entity) throws -> Bool) rethrows {
    let before = liveSlots
    var sorted = before
    try sorted.sort { try areInIncreasingOrder($0.entity, $1.entity) }
    for offset in sorted.indices where before[offset].entity.id != sorted[offset].entity.id {
      sorted[offset].upserted = true
    }
    replaceSlots(with: sorted)
  }
}
