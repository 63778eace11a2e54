extension EntityStore {
  /// Verifies every storage invariant; tests call it (through `@testable import`) after every
  /// operation.
  ///
  /// - Throws: `InvariantViolation` naming the first invariant that fails, with the
  ///   store's whole state in the message.
  /// - Complexity: O(*n* + *c*), where *n* is the number of slots and *c* the number of changes.
  func checkInvariants() throws(InvariantViolation) {
    func require(
      _ condition: Bool, _ message: @autoclosure () -> String
    ) throws(InvariantViolation) {
      guard condition else {
        throw InvariantViolation(
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
        changeLog[index] == slot,
        "slot \(slot) names log entry \(index), which names slot \(changeLog[index])")
      try require(slots[slot] != nil, "tombstone \(slot) names log entry \(index)")
    }

    // The change log names each id once: upserts by their live slot, deletions through the index.
    var logged = Set<ID>(minimumCapacity: changeLog.count)
    var loggedDeletions = 0
    for (index, slot) in changeLog.enumerated() {
      if slot >= 0 {
        try require(
          slot < slots.count && logIndexBySlot[slot] == index,
          "log entry \(index) upserts slot \(slot), which does not name it")
        guard let id = slots[slot]?.id else { continue }  // reported above
        try require(logged.insert(id).inserted, "\(id) is logged twice")
        try require(deletionLogIndex[id] == nil, "upserted \(id) is indexed as a deletion")
      } else {
        try require(slot == -1, "log entry \(index) is \(slot)")
        loggedDeletions += 1
      }
    }
    var deletionEntries = Set<Int>(minimumCapacity: deletionLogIndex.count)
    for (id, index) in deletionLogIndex {
      try require(
        deletionEntries.insert(index).inserted, "two deleted ids share log entry \(index)")
      try require(
        changeLog.indices.contains(index) && changeLog[index] == -1,
        "deleted \(id) is indexed at log entry \(index), which is not a deletion")
      try require(logged.insert(id).inserted, "\(id) is logged twice")
    }
    try require(
      deletionLogIndex.count == loggedDeletions,
      "\(deletionLogIndex.count) indexed deletions for \(loggedDeletions) in the log")
    try require(hasChanges == !changeLog.isEmpty, "hasChanges is \(hasChanges)")
  }

  /// The whole storage, for an invariant's failure message.
  var debugState: String {
    let slotList = slots.indices.map { slotDescription($0) }.joined(separator: ", ")
    var deletedIDs: [Int: ID] = [:]
    for (id, index) in deletionLogIndex { deletedIDs[index] = id }
    let log = changeLog.indices.map { index in
      let slot = changeLog[index]
      return slot >= 0
        ? "+\(slotDescription(slot))@\(slot)"
        : "-\(deletedIDs[index].map { "\($0)" } ?? "?")"
    }.joined(separator: ", ")
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
