extension EntityStore {
  /// Compacts once tombstones outnumber live entities, so that deletion stays O(1) amortized
  /// and iteration stays within a constant factor of a dense array.
  @inlinable
  mutating func compactIfSparse() {
    let tombstones = slots.count - positions.count
    guard tombstones > 16, tombstones > positions.count else { return }
    compact()
  }

  /// Removes every tombstone, updating the positions of the entities that moved.
  ///
  /// - Complexity: O(*n*).
  @inlinable
  public mutating func compact() {
    guard slots.count != positions.count else { return }
    replaceSlots(with: liveSlots)
  }

  /// The live entities in order, each with its upsert flag.
  @usableFromInline
  var liveSlots: [(entity: Entity, upserted: Bool)] {
    var live: [(entity: Entity, upserted: Bool)] = []
    live.reserveCapacity(positions.count)
    for (slot, entity) in slots.enumerated() {
      if let entity { live.append((entity, upsertedSlots[slot])) }
    }
    return live
  }

  /// Installs dense `newSlots` (no tombstones) and re-indexes the entities whose slot changed.
  /// Upserts recorded before keep their first-change order; newly flagged ones follow in slot
  /// order.
  @usableFromInline
  mutating func replaceSlots(with live: [(entity: Entity, upserted: Bool)]) {
    let previouslyUpserted = upsertedSlotList.compactMap { slots[$0]?.id }
    var newSlots: [Entity?] = []
    newSlots.reserveCapacity(live.count)
    upsertedSlots = []
    upsertedSlots.reserveCapacity(live.count)
    for (offset, (entity, upserted)) in live.enumerated() {
      if positions[entity.id] != offset { positions[entity.id] = offset }
      newSlots.append(entity)
      upsertedSlots.append(upserted)
    }
    slots = newSlots
    var listed = [Bool](repeating: false, count: live.count)
    upsertedSlotList = []
    for id in previouslyUpserted {
      guard let slot = positions[id], upsertedSlots[slot], !listed[slot] else { continue }
      listed[slot] = true
      upsertedSlotList.append(slot)
    }
    for slot in upsertedSlots.indices where upsertedSlots[slot] && !listed[slot] {
      upsertedSlotList.append(slot)
    }
  }
}
