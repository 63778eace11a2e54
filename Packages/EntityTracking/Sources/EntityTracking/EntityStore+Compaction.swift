extension EntityStore {
  /// Removes every tombstone, updating the positions of the entities that moved. Afterwards
  /// `index(_:offsetBy:)` and `distance(from:to:)` are O(1) until the next deletion.
  ///
  /// The store compacts itself once tombstones outnumber live entities (and exceed 16), so
  /// calling this is never needed for deletion to stay O(1) amortized.
  ///
  /// - Complexity: O(*n*), where *n* is the number of entities; O(1) when there is no tombstone.
  @inlinable
  public mutating func compact() {
    guard slots.count != positions.count else { return }
    replaceSlots(with: liveSlots)
  }

  /// Compacts once tombstones outnumber live entities and exceed 16, so that deletion stays
  /// O(1) amortized and a pass over the storage stays within a constant factor of the live
  /// entities.
  @inlinable
  mutating func compactIfSparse() {
    let tombstones = slots.count - positions.count
    guard tombstones > 16, tombstones > positions.count else { return }
    compact()
  }

  /// After the entity in `position` became a tombstone: drops the tombstones at the end (so the
  /// last slot is live) and moves `firstLiveSlot` past the tombstones at the start.
  ///
  /// - Complexity: O(1) amortized: a tombstone is dropped once, and `firstLiveSlot` passes it
  ///   once, since it only moves forward until the next compaction.
  @inlinable
  mutating func dropTombstones(around position: Int) {
    if position == slots.count - 1 {
      slots.removeLast()
      logIndexBySlot.removeLast()
      while let last = slots.last, last == nil {
        slots.removeLast()
        logIndexBySlot.removeLast()
      }
    }
    if position == firstLiveSlot {
      var next = position + 1
      while next < slots.count, slots[next] == nil { next += 1 }
      firstLiveSlot = Swift.min(next, slots.count)
    }
  }

  /// A live entity on its way to a new slot: its entry in the change log (or `-1`), and whether
  /// to record an upsert of it once it is there.
  @usableFromInline
  struct LiveSlot {
    @usableFromInline var entity: Entity
    @usableFromInline var logIndex: Int
    @usableFromInline var recordsUpsert: Bool

    @inlinable
    init(entity: Entity, logIndex: Int, recordsUpsert: Bool) {
      self.entity = entity
      self.logIndex = logIndex
      self.recordsUpsert = recordsUpsert
    }
  }

  /// The live entities in order, each with its change-log entry.
  @usableFromInline
  var liveSlots: [LiveSlot] {
    var live: [LiveSlot] = []
    live.reserveCapacity(positions.count)
    for slot in slots.indices {
      if let entity = slots[slot] {
        live.append(LiveSlot(entity: entity, logIndex: logIndexBySlot[slot], recordsUpsert: false))
      }
    }
    return live
  }

  /// Installs `live` as dense storage (no tombstone): re-indexes the entities whose slot
  /// changed and points their change-log entries at their new slots, so that every change keeps
  /// its place in the log. Then records the upserts `live` asks for, in slot order.
  ///
  /// - Complexity: O(*m*), where *m* is the number of entities in `live`.
  @usableFromInline
  mutating func replaceSlots(with live: [LiveSlot]) {
    var newSlots: [Entity?] = []
    newSlots.reserveCapacity(live.count)
    var newLogIndexBySlot: [Int] = []
    newLogIndexBySlot.reserveCapacity(live.count)
    for offset in live.indices {
      let item = live[offset]
      if positions[item.entity.id] != offset { positions[item.entity.id] = offset }
      newSlots.append(item.entity)
      newLogIndexBySlot.append(item.logIndex)
      if item.logIndex >= 0 { changeLog[item.logIndex] = offset }
    }
    slots = newSlots
    logIndexBySlot = newLogIndexBySlot
    firstLiveSlot = 0
    for offset in live.indices where live[offset].recordsUpsert {
      recordUpsert(live[offset].entity.id, at: offset)
    }
  }
}
