import EntityTracking

/// The positions a drain gives the entities it writes.
struct Placement {
  /// The position of each written entity, at its offset among the writes.
  var positions: [Double]
  /// Whether the positions left no room between two neighbours, so that every entity was
  /// numbered again: then `positions` are every entity's, in the store's order, and every
  /// entity must be written.
  var renumbered: Bool
}

extension EntityStore {
  /// Positions that keep the table's order equal to the store's: each written entity keeps the
  /// position it has when that still lies between its neighbours' (a change in place), and
  /// takes one between them otherwise (inserted, moved, restored to an earlier place). Entities
  /// not written keep theirs, so a move writes one row.
  ///
  /// Entities written side by side are placed together: between the nearest entities not
  /// written on either side, the ones already in increasing order stay, and the others are
  /// spread over the gaps left. A new position is taken at a random point of the middle half
  /// of its gap (of the unit after the last entity, or before the first), so that two writers
  /// placing an entity at the same spot at once rarely give both the same position, and
  /// their stores still agree on the order once each has the other's row.
  ///
  /// - Parameters:
  ///   - writes: The entities written, every one stored.
  ///   - key: The table's key of an id.
  ///   - positions: The rows' positions: read, and updated with the writes'.
  /// - Returns: The writes' positions; when a gap had no room left (after some 50 to 120
  ///   insertions at one spot), every entity's, renumbered.
  /// - Complexity: O(*c*), or O(*c* log *c*) when the writes are not in the store's order, plus
  ///   the entities not yet positioned that are passed over; O(*n*) when renumbering.
  func placement<Key>(
    of writes: [Entity], key: (ID) -> Key, positions: inout [Key: Double]
  ) -> Placement {
    let count = writes.count
    var indices: [Index] = []
    indices.reserveCapacity(count)
    var isSorted = true
    for offset in writes.indices {
      guard let index = index(forID: writes[offset].id) else {
        preconditionFailure("A drain placed \(writes[offset].id), which the store does not hold")
      }
      if let last = indices.last, last > index { isSorted = false }
      indices.append(index)
    }
    var order = Array(writes.indices)
    if !isSorted { order.sort { indices[$0] < indices[$1] } }
    var placed = [Double](repeating: 0, count: count)
    var runStart = 0
    while runStart < count {
      var runEnd = runStart + 1
      while runEnd < count, indices[order[runEnd]] == index(after: indices[order[runEnd - 1]]) {
        runEnd += 1
      }
      let run = order[runStart..<runEnd]
      guard
        placeRun(
          run.map { writes[$0].id }, from: indices[run.first!], through: indices[run.last!],
          key: key, positions: &positions, into: &placed, at: Array(run))
      else {
        return Placement(positions: number(key: key, positions: &positions), renumbered: true)
      }
      runStart = runEnd
    }
    return Placement(positions: placed, renumbered: false)
  }

  /// Places entities side by side in the store (`ids`, from `first` through `last`) between
  /// the nearest positioned entities around them. Returns `false` when a gap has no room.
  private func placeRun<Key>(
    _ ids: [ID], from first: Index, through last: Index, key: (ID) -> Key,
    positions: inout [Key: Double], into placed: inout [Double], at offsets: [Int]
  ) -> Bool {
    let low = neighbour(before: first, key: key, positions: positions) ?? -.infinity
    let high = neighbour(after: last, key: key, positions: positions) ?? .infinity
    // NB: of the entities already positioned, those increasing between the bounds stay.
    var stays = [Bool](repeating: false, count: ids.count)
    var lastKept = low
    for offset in ids.indices {
      if let position = positions[key(ids[offset])], position > lastKept, position < high {
        stays[offset] = true
        lastKept = position
      }
    }
    var offset = 0
    var lower = low
    while offset < ids.count {
      if stays[offset] {
        let position = positions[key(ids[offset])]!
        placed[offsets[offset]] = position
        lower = position
        offset += 1
        continue
      }
      var gapEnd = offset
      while gapEnd < ids.count, !stays[gapEnd] { gapEnd += 1 }
      let upper = gapEnd < ids.count ? positions[key(ids[gapEnd])]! : high
      let spread = Self.spread(gapEnd - offset, between: lower, and: upper)
      guard let spread else { return false }
      for (id, position) in zip(ids[offset..<gapEnd], spread) {
        positions[key(id)] = position
      }
      for (index, position) in zip(offset..<gapEnd, spread) { placed[offsets[index]] = position }
      offset = gapEnd
    }
    return true
  }

  /// `count` increasing positions strictly between `lower` and `upper` (either may be
  /// infinite), each at the same random point of the middle half of its share; `nil` when the gap is
  /// too narrow for a `Double` to tell them apart.
  static func spread(_ count: Int, between lower: Double, and upper: Double) -> [Double]? {
    var spread: [Double] = []
    spread.reserveCapacity(count)
    var previous = lower
    // NB: one random point for the whole gap: a system random number per row would be a
    // system call per row of a large insert.
    let jitter = Double.random(in: 0.25..<0.75)
    for step in 0..<count {
      let position: Double =
        switch (lower.isFinite, upper.isFinite) {
        case (false, false): Double(step) + jitter
        case (true, false): lower + Double(step) + jitter * 2
        case (false, true): upper - Double(count - step) + jitter - 0.5
        case (true, true): lower + (upper - lower) * (Double(step) + jitter) / Double(count)
        }
      guard position > previous, position < upper else { return nil }
      spread.append(position)
      previous = position
    }
    return spread
  }

  /// The position of the nearest positioned entity before `index`.
  private func neighbour<Key>(before index: Index, key: (ID) -> Key, positions: [Key: Double])
    -> Double?
  {
    var current = index
    while current > startIndex {
      current = self.index(before: current)
      if let position = positions[key(self[current].id)] { return position }
    }
    return nil
  }

  /// The position of the nearest positioned entity after `index`.
  private func neighbour<Key>(after index: Index, key: (ID) -> Key, positions: [Key: Double])
    -> Double?
  {
    var current = self.index(after: index)
    while current < endIndex {
      if let position = positions[key(self[current].id)] { return position }
      current = self.index(after: current)
    }
    return nil
  }

  /// Numbers every entity, 1, 2, 3… in the store's order: the rare bulk step once a gap is
  /// exhausted.
  ///
  /// - Returns: The positions, in the store's order.
  @discardableResult
  func number<Key>(key: (ID) -> Key, positions: inout [Key: Double]) -> [Double] {
    positions.removeAll(keepingCapacity: true)
    var numbers: [Double] = []
    numbers.reserveCapacity(count)
    for entity in self {
      let number = Double(numbers.count + 1)
      positions[key(entity.id)] = number
      numbers.append(number)
    }
    return numbers
  }
}
