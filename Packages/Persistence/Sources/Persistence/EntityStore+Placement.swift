import EntityTracking

extension EntityStore {
  /// The offsets in `changed` of the entities that sit after every entity not in `changed`, in
  /// the store's order: the entities a drain has placed last (every inserted or re-inserted
  /// one is among them, since the store appends).
  ///
  /// - Complexity: O(*c* + *t*), where *c* is the number of changed entities and *t* the
  ///   number of deleted entities at the end of the store awaiting compaction.
  func offsetsPlacedLast(among changed: [Entity]) -> [Int] {
    guard !changed.isEmpty, !isEmpty else { return [] }
    var run: [Int] = []
    // NB: entities inserted by the drained reduces end both the store and `changed` (the
    // change order), in the same order: they are matched from the end without hashing.
    // Past the first mismatch, ids are looked up (a linear search beats hashing for the few
    // changes of a typical drain).
    var next = changed.count - 1
    var lookup: [ID: Int]?
    var index = endIndex
    // NB: counting the live entities visited stops the walk at the first one without
    // computing `startIndex`, which steps over every leading deletion.
    for _ in 0..<count {
      index = self.index(before: index)
      let id = self[index].id
      if next >= 0, changed[next].id == id {
        run.append(next)
        next -= 1
        continue
      }
      next = -1
      let offset: Int?
      if changed.count > 16 {
        if lookup == nil {
          var offsets: [ID: Int] = [:]
          offsets.reserveCapacity(changed.count)
          // NB: indices, not `enumerated()`, whose iterator, run unspecialized, looked up its
          // generic metadata for every entity.
          for offset in changed.indices { offsets[changed[offset].id] = offset }
          lookup = offsets
        }
        offset = lookup?[id]
      } else {
        offset = changed.firstIndex { $0.id == id }
      }
      guard let offset else { break }
      run.append(offset)
    }
    return run.reversed()
  }
}
