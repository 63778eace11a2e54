public import EntityTracking

/// The positions a drain gives the entities it writes.
@usableFromInline
struct Placement {
  /// The position of each written entity, at its offset among the writes.
  @usableFromInline var positions: [Double]
  /// Whether the positions left no room between two neighbours, so that every entity was
  /// numbered again: then `positions` are every entity's, in the store's order, and every
  /// entity must be written.
  @usableFromInline var renumbered: Bool

  @inlinable
  init(positions: [Double], renumbered: Bool) {
    self.positions = positions
    self.renumbered = renumbered
  }
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
  @inlinable
  func placement<Key>(
    of writes: [Entity], key: (ID) -> Key, positions: inout [Key: Double]
  ) -> Placement {
    let count = writes.count
    // NB: room made at once: growing a dictionary rehashes every key, which in this
    // unspecialized generic code (the key type is the app's) costs more than the placing.
    positions.reserveCapacity(positions.count + count)
    var placed = [Double](repeating: 0, count: count)
    if let first = firstIndex(ofTail: writes) {
      // NB: the writes are the store's last entities, in order (what inserting does): one run,
      // found without hashing an id.
      guard
        placeRun(
          writes, order: nil, 0..<count, from: first, through: index(before: endIndex),
          key: key, positions: &positions, into: &placed)
      else {
        return Placement(positions: number(key: key, positions: &positions), renumbered: true)
      }
      return Placement(positions: placed, renumbered: false)
    }
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
    var runStart = 0
    while runStart < count {
      var runEnd = runStart + 1
      while runEnd < count, indices[order[runEnd]] == index(after: indices[order[runEnd - 1]]) {
        runEnd += 1
      }
      guard
        placeRun(
          writes, order: order, runStart..<runEnd, from: indices[order[runStart]],
          through: indices[order[runEnd - 1]], key: key, positions: &positions, into: &placed)
      else {
        return Placement(positions: number(key: key, positions: &positions), renumbered: true)
      }
      runStart = runEnd
    }
    return Placement(positions: placed, renumbered: false)
  }

  /// The index of the first of `writes` when they are the store's last entities, in order.
  @inlinable
  func firstIndex(ofTail writes: [Entity]) -> Index? {
    guard !writes.isEmpty, writes.count <= count else { return nil }
    var index = endIndex
    var offset = writes.count
    while offset > 0 {
      offset -= 1
      index = self.index(before: index)
      guard self[index].id == writes[offset].id else { return nil }
    }
    return index
  }

  /// Places the writes at `range` of `order` (of `writes` itself when `nil`), side by side in
  /// the store from `first` through `last`, between the nearest positioned entities around
  /// them. Returns `false` when a gap has no room.
  @inlinable
  func placeRun<Key>(
    _ writes: [Entity], order: [Int]?, _ range: Range<Int>, from first: Index,
    through last: Index, key: (ID) -> Key, positions: inout [Key: Double],
    into placed: inout [Double]
  ) -> Bool {
    let low = neighbour(before: first, key: key, positions: positions) ?? -.infinity
    let high = neighbour(after: last, key: key, positions: positions) ?? .infinity
    let length = range.count
    var offsets: [Int] = []
    var keys: [Key] = []
    offsets.reserveCapacity(length)
    keys.reserveCapacity(length)
    for index in range {
      let offset = order?[index] ?? index
      offsets.append(offset)
      keys.append(key(writes[offset].id))
    }
    // NB: of the entities already positioned, those increasing between the bounds stay.
    var kept = [Double](repeating: .nan, count: length)
    var lastKept = low
    for run in 0..<length {
      if let position = positions[keys[run]], position > lastKept, position < high {
        kept[run] = position
        lastKept = position
      }
    }
    var run = 0
    var lower = low
    while run < length {
      if !kept[run].isNaN {
        placed[offsets[run]] = kept[run]
        lower = kept[run]
        run += 1
        continue
      }
      var gapEnd = run
      while gapEnd < length, kept[gapEnd].isNaN { gapEnd += 1 }
      let upper = gapEnd < length ? kept[gapEnd] : high
      guard let spread = Self.spread(gapEnd - run, between: lower, and: upper) else {
        return false
      }
      for step in spread.indices {
        positions[keys[run + step]] = spread[step]
        placed[offsets[run + step]] = spread[step]
      }
      run = gapEnd
    }
    return true
  }

  /// `count` increasing positions strictly between `lower` and `upper` (either may be
  /// infinite), each at the same random point of the middle half of its share; `nil` when the gap is
  /// too narrow for a `Double` to tell them apart.
  @inlinable
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
  @inlinable
  func neighbour<Key>(before index: Index, key: (ID) -> Key, positions: [Key: Double])
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
  @inlinable
  func neighbour<Key>(after index: Index, key: (ID) -> Key, positions: [Key: Double])
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
  @inlinable
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
