extension EntityStore {
  /// Inserts `entity` at the end, or replaces the stored entity with its id in place. Records an
  /// upsert unless an equal value was already stored.
  ///
  /// - Parameter entity: The entity to store.
  /// - Complexity: O(1) amortized.
  @inlinable
  public mutating func upsert(_ entity: Entity) {
    // NB: one hash lookup serves both paths: the defaulted subscript inserts the key if absent.
    let end = slots.count
    let position = Self.claim(&positions[entity.id, default: end])
    if position == end {
      slots.append(entity)
      logIndexBySlot.append(-1)
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
  /// - Parameter entities: The entities to insert or replace.
  /// - Complexity: O(*m*) amortized, where *m* is the number of entities given.
  public mutating func upsert(contentsOf entities: some Sequence<Entity>) {
    for entity in entities { upsert(entity) }
  }

  /// Deletes the entity with this id and records the deletion. Does nothing for an unknown id.
  ///
  /// - Parameter id: The id of the entity to delete.
  /// - Returns: The deleted entity, if there was one.
  /// - Complexity: O(1) amortized.
  @inlinable @discardableResult
  public mutating func remove(_ id: ID) -> Entity? {
    guard let position = positions.removeValue(forKey: id) else { return nil }
    let removed = slots[position].take()
    recordDeletion(id, at: position)
    dropTombstones(around: position)
    compactIfSparse()
    return removed
  }

  /// Deletes the entities with these ids, recording each deletion.
  ///
  /// - Parameter ids: The ids to delete; unknown ones are ignored.
  /// - Complexity: O(*m*) amortized, where *m* is the number of ids given.
  public mutating func remove(ids: some Sequence<ID>) {
    for id in ids { remove(id) }
  }

  /// Mutates the entity with this id in place. Records an upsert only if the value changed;
  /// does nothing for an unknown id.
  ///
  /// - Parameters:
  ///   - id: The id of the entity to mutate.
  ///   - transform: Mutates the entity. If it throws, the store is left unchanged.
  /// - Precondition: `transform` keeps the entity's id.
  /// - Throws: What `transform` throws.
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

  /// Deletes every entity that satisfies `shouldBeRemoved`, recording each deletion in order.
  ///
  /// - Parameter shouldBeRemoved: Whether to delete an entity. If it throws, the store is left
  ///   unchanged.
  /// - Throws: What `shouldBeRemoved` throws.
  /// - Complexity: O(*n*), where *n* is the number of entities.
  public mutating func removeAll(where shouldBeRemoved: (Entity) throws -> Bool) rethrows {
    // NB: decide for every entity before changing anything, so that a throw leaves no trace.
    var removedSlots: [Int] = []
    for slot in slots.indices {
      if let entity = slots[slot], try shouldBeRemoved(entity) { removedSlots.append(slot) }
    }
    guard !removedSlots.isEmpty else { return }
    for slot in removedSlots {
      guard let id = slots[slot].take()?.id else { continue }
      positions[id] = nil
      recordDeletion(id, at: slot)
    }
    compact()
  }

  /// Sorts the entities, recording an upsert for each entity that moved: the fewest, those
  /// outside a longest run of entities already in sorted order (see ``restore(from:)``), in the
  /// new order.
  ///
  /// - Parameter areInIncreasingOrder: A strict weak ordering of entities. If it throws, the
  ///   store is left unchanged.
  /// - Throws: What `areInIncreasingOrder` throws.
  /// - Complexity: O(*n* log *n*), where *n* is the number of entities.
  public mutating func sort(by areInIncreasingOrder: (Entity, Entity) throws -> Bool) rethrows {
    let live = liveSlots
    // NB: the offsets of the entities, sorted: the entities that stay are a longest run of
    // offsets still increasing.
    var order = Array(live.indices)
    try order.sort { try areInIncreasingOrder(live[$0].entity, live[$1].entity) }
    let stays = Self.longestIncreasingRun(order)
    var sorted: [LiveSlot] = []
    sorted.reserveCapacity(live.count)
    for offset in order.indices {
      var item = live[order[offset]]
      item.recordsUpsert = !stays[offset]
      sorted.append(item)
    }
    replaceSlots(with: sorted)
  }
}
