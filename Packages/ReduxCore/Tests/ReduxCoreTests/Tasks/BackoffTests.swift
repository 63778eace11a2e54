import ReduxCore
import Testing

@Suite struct BackoffTests {
  /// 0.5 s doubling to 30 s: Persistence's default flush retry.
  static let doubling = Backoff(initialDelay: .milliseconds(500), maximumDelay: .seconds(30))

  @Test(arguments: [
    (0, Duration.milliseconds(500)),
    (-5, .milliseconds(500)),
    (1, .milliseconds(500)),
    (2, .seconds(1)),
    (3, .seconds(2)),
    (4, .seconds(4)),
    (5, .seconds(8)),
    (6, .seconds(16)),
    (7, .seconds(30)),
    (8, .seconds(30)),
    (64, .seconds(30)),
    (1_000_000, .seconds(30)),
    (Int.max, .seconds(30)),
  ])
  func doublesFromTheInitialDelayUpToTheMaximum(attempt: Int, expected: Duration) {
    #expect(Self.doubling.delay(beforeRetry: attempt) == expected)
  }

  @Test(arguments: [
    (1, Duration.milliseconds(100)),
    (2, .milliseconds(300)),
    (3, .milliseconds(900)),
    (4, .milliseconds(2_700)),
    (5, .seconds(5)),
    (Int.max, .seconds(5)),
  ])
  func multipliesByTheMultiplier(attempt: Int, expected: Duration) {
    let tripling = Backoff(
      initialDelay: .milliseconds(100), multiplier: 3, maximumDelay: .seconds(5))
    #expect(tripling.delay(beforeRetry: attempt) == expected)
  }

  @Test(arguments: [1, 2, 1_000, Int.max])
  func aMultiplierOfOneWaitsTheSameEveryTime(attempt: Int) {
    let constant = Backoff(initialDelay: .seconds(2), multiplier: 1, maximumDelay: .seconds(10))
    #expect(constant.delay(beforeRetry: attempt) == .seconds(2))
  }

  @Test(arguments: [1, 2, Int.max])
  func aZeroInitialDelayRetriesAtOnce(attempt: Int) {
    let immediate = Backoff(initialDelay: .zero, maximumDelay: .seconds(30))
    #expect(immediate.delay(beforeRetry: attempt) == .zero)
  }

  @Test(arguments: [1, 2, 3, 4, 200, Int.max])
  func aHugeMultiplierAndMaximumDoNotOverflow(attempt: Int) {
    // The second wait, 1 s × Int.max, is just under the maximum; the third, 1 s × Int.max², is
    // past what a Duration holds (about 1.7 × 10²⁰ s).
    let maximum = Duration.seconds(Int64.max) + .seconds(1)
    let steep = Backoff(initialDelay: .seconds(1), multiplier: .max, maximumDelay: maximum)
    let expected: Duration =
      switch attempt {
      case 1: .seconds(1)
      case 2: .seconds(Int64.max)
      default: maximum
      }
    #expect(steep.delay(beforeRetry: attempt) == expected)
  }

  @Test func reachesTheMaximumExactlyWhenAPowerHitsIt() {
    let exact = Backoff(initialDelay: .seconds(1), maximumDelay: .seconds(8))
    #expect((1...6).map(exact.delay(beforeRetry:)) == [1, 2, 4, 8, 8, 8].map { .seconds($0) })
  }

  @Test func equalBackoffsHashAlike() {
    let copy = Backoff(initialDelay: .milliseconds(500), multiplier: 2, maximumDelay: .seconds(30))
    #expect(copy == Self.doubling)
    #expect(Set([copy, Self.doubling]).count == 1)
    #expect(copy != Backoff(initialDelay: .milliseconds(500), maximumDelay: .seconds(31)))
  }

  /// Arguments out of range do not trap the app: they are clamped, and the backoff says how.
  @Test func outOfRangeArgumentsAreClampedAndListed() {
    let backoff = Backoff(initialDelay: .seconds(-1), multiplier: 0, maximumDelay: .seconds(-2))
    #expect(backoff.initialDelay == .zero && backoff.multiplier == 1)
    #expect(backoff.maximumDelay == .zero)
    #expect(
      backoff.adjustments == [
        "Backoff: initialDelay -1.0 seconds is negative; using 0 seconds",
        "Backoff: multiplier 0 is below 1; using 1",
        "Backoff: maximumDelay -2.0 seconds is shorter than initialDelay; using 0.0 seconds",
      ])
    #expect(backoff.delay(beforeRetry: 3) == .zero)
  }

  @Test func aMaximumShorterThanTheInitialDelayIsTheInitialDelay() {
    let backoff = Backoff(initialDelay: .seconds(3600), maximumDelay: .seconds(30))
    #expect(backoff.maximumDelay == .seconds(3600))
    #expect(backoff.delay(beforeRetry: 4) == .seconds(3600))
    #expect(Self.doubling.adjustments.isEmpty)
  }
}
