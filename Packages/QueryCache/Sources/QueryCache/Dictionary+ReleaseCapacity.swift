extension Dictionary {
  /// Rebuilds the dictionary to fit its elements when they fill less than a quarter of its
  /// capacity, which a Swift dictionary otherwise keeps after removals: a cache that held 100k
  /// keys and collected them would go on holding their buckets.
  ///
  /// Call it after a removal. A rebuilt dictionary's capacity is less than 2⅔ times its count
  /// (Swift fills buckets to ¾), so a third of its elements must go before the next rebuild:
  /// the copies cost O(1) amortized per removal.
  ///
  /// - Parameter minimumCapacity: Below this capacity nothing is rebuilt (a small dictionary's
  ///   buckets cost less than the copies).
  /// - Complexity: O(1), or O(*n*) when it rebuilds (*n* the number of elements).
  mutating func releaseCapacityIfSparse(minimumCapacity: Int = 64) {
    guard capacity > minimumCapacity, count < capacity / 4 else { return }
    guard !isEmpty else {
      self = [:]
      return
    }
    var rebuilt = Dictionary(minimumCapacity: count)
    for (key, value) in self { rebuilt[key] = value }
    self = rebuilt
  }
}
