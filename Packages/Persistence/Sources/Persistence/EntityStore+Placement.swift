import EntityTracking

extension EntityStore {
  /// The ids of the entities of `changed` that sit after every entity not in `changed`, in
  /// the store's order: the entities a drain has placed last (every inserted or re-inserted
  /// one is among them, since the store appends).
  ///
  /// - Complexity: O(*c* + *t*), where *c* is the number of changed entities and *t* the
  ///   number of deleted entities at the end of the store awaiting compaction.
  func idsPlacedLast(among changed: [Entity]) -> [ID] {
    guard !changed.isEmpty, !isEmpty else { return [] }
    // NB: a linear search beats hashing for the few changes of a typical drain.
    let lookup = changed.count > 16 ? Set(changed.map(\.id)) : nil
    var run: [ID] = []
    var index = endIndex
    // NB: counting the live entities visited stops the walk at the first one without
    // computing `startIndex`, which steps over every leading deletion.
    for _ in 0..<count {
      index = self.index(before: index)
      let id = self[index].id
      let isChanged = lookup?.contains(id) ?? changed.contains { $0.id == id }
      guard isChanged else { break }
      run.append(id)
    }
    return run.reversed()
  }
}
