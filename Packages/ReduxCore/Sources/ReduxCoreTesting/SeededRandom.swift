/// A seeded random number generator (SplitMix64) for tests that make random edits: the same
/// seed makes the same edits every run, so that a failing seed replays.
///
/// ```swift
/// var random = SeededRandom(seed: 42)
/// let offset = random.next(below: items.count)
/// let item = items.randomElement(using: &random)
/// ```
public struct SeededRandom: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// A generator whose numbers follow from `seed`.
  public init(seed: UInt64) {
    state = seed
  }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9e37_79b9_7f4a_7c15
    var z = state
    z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
    z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
    return z ^ (z >> 31)
  }

  /// A number in `0..<bound`.
  ///
  /// - Precondition: `bound` is positive.
  public mutating func next(below bound: Int) -> Int {
    precondition(bound > 0, "next(below:) needs a positive bound, not \(bound)")
    return Int(next() % UInt64(bound))
  }
}
