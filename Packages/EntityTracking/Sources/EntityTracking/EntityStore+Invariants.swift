/// A storage invariant of an `EntityStore` that does not hold: which one, and the whole state.
struct EntityStoreInvariantViolation: Error, CustomStringConvertible {
  let description: String
}

extension EntityStore {
  /// Verifies every storage invariant; tests call it (through `@testable import`) after every
  /// operation.
  ///
  /// - Throws: `EntityStoreInvariantViolation` naming the first invariant that fails, with the
  ///   store's whole state in the message.
  /// - Complexity: O(*n* + *c*), where *n* is the number of slots and *c* the number of changes.
  func checkInvariants() throws(EntityStoreInvariantViolation) {
    func require(
      _ condition: Bool, _ message: @autoclosure () -> String
    ) throws(EntityStoreInvariantViolation) {
      guard condition else {
        throw EntityStoreInvariantViolation(
          description: "EntityStore invariant broken: \(message())\n\(debugState)")
      }
    }

    // Count and tombstones.
    let live = slots.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
    try require(positions.count == live, "\(positions.count) positions for \(live) live slots")
    try require(count == live, "count is \(count) for \(live) live slots")
    try require(isEmpty == (live == 0), "isEmpty is \(isEmpty) for \(live) live slots")
    let tombstones = slots.count - live
    try require(
      tombstones <= Swift.max(16, live),
      "\(tombstones) tombstones for \(live) live entities: a compaction was missed")
    try require(slots.last.map { $0 != nil } ?? true, "the last slot is a tombstone")
    let firstLive = slots.firstIndex { $0 != nil } ?? slots.count
    try require(
      firstLiveSlot == firstLive,
      "firstLiveSlot is \(firstLiveSlot), the first live slot \(firstLive)")

    // Positions and slots agree.
    for (id, slot) in positions {
      try require(
        slots.indices.contains(slot) && slots[slot]?.id == id,
        "positions[\(id)] is \(slot), which holds \(slotDescription(slot))")
    }
    for (slot, entity) in slots.enumerated() {
      guard let entity else { continue }
      try require(
        positions[entity.id] == slot,
        "slot \(slot) holds \(entity.id), whose position is \(String(describing: positions[entity.id]))"
      )
    }

    // Per-slot log indices and the change log agree.
    try require(
      logIndexBySlot.count == slots.count,
      "\(logIndexBySlot.count) log indices for \(slots.count) slots")
    for (slot, index) in logIndexBySlot.enumerated() where index != -1 {
      try require(
        changeLog.indices.contains(index),
        "slot \(slot) names log entry \(index) of \(changeLog.count)")
      try require(
        changeLog[index].slot == slot,
        "slot \(slot) names log entry \(index), which names slot \(changeLog[index].slot)")
      try require(
        slots[slot]?.id == changeLog[index].id,
        "slot \(slot) holds \(slotDescription(slot)) but its log entry is \(changeLog[index].id)")
    }

    // The change log names each id once; upserts point at their slots, deletions are indexed.
    var logged = Set<ID>(minimumCapacity: changeLog.count)
    var loggedDeletions = 0
    for (index, change) in changeLog.enumerated() {
      try require(logged.insert(change.id).inserted, "\(change.id) is logged twice")
      if change.slot >= 0 {
        try require(
          change.slot < slots.count && logIndexBySlot[change.slot] == index,
          "log entry \(index) upserts \(change.id) in slot \(change.slot), which does not name it")
        try require(
          deletionLogIndex[change.id] == nil, "upserted \(change.id) is indexed as a deletion")
      } else {
        try require(change.slot == -1, "log entry \(index) has slot \(change.slot)")
        try require(
          deletionLogIndex[change.id] == index,
          "deleted \(change.id) at log entry \(index) is indexed at "
            + String(describing: deletionLogIndex[change.id]))
        loggedDeletions += 1
      }
    }
    try require(
      deletionLogIndex.count == loggedDeletions,
      "\(deletionLogIndex.count) indexed deletions for \(loggedDeletions) in the log")
    try require(hasChanges == !changeLog.isEmpty, "hasChanges is \(hasChanges)")
  }

  /// The whole storage, for an invariant's failure message.
  var debugState: String {
    let slotList = slots.indices.map { slotDescription($0) }.joined(separator: ", ")
    let log = changeLog.map { "\($0.id)@\($0.slot)" }.joined(separator: ", ")
    return """
        slots: [\(slotList)]
        positions: \(positions)
        firstLiveSlot: \(firstLiveSlot)
        logIndexBySlot: \(logIndexBySlot)
        changeLog: [\(log)]
        deletionLogIndex: \(deletionLogIndex)
      """
  }

  private func slotDescription(_ slot: Int) -> String {
    guard slots.indices.contains(slot) else { return "nothing (out of bounds)" }
    return slots[slot].map { "\($0.id)" } ?? "†"
  }
}
