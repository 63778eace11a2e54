import Persistence
import ReduxCore
import Testing

@Suite struct RetryPolicyTests {
  @Test func theDefaultIsHalfASecondDoublingToThirtySeconds() {
    #expect(
      RetryPolicy.default.backoff
        == Backoff(initialDelay: .milliseconds(500), multiplier: 2, maximumDelay: .seconds(30)))
    #expect(RetryPolicy.default.delay(beforeRetry: 1_000_000) == .seconds(30))
  }

  @Test func itsPropertiesReadAndWriteItsBackoff() {
    var policy = RetryPolicy(backoff: Backoff(initialDelay: .seconds(1), maximumDelay: .seconds(8)))
    #expect(policy.initialDelay == .seconds(1) && policy.multiplier == 2)
    policy.multiplier = 3
    policy.maximumDelay = .seconds(60)
    #expect(
      policy.backoff
        == Backoff(initialDelay: .seconds(1), multiplier: 3, maximumDelay: .seconds(60)))
    #expect((1...5).map(policy.delay(beforeRetry:)) == [1, 3, 9, 27, 60].map { .seconds($0) })
  }

  /// A configuration value out of range does not trap the app: it is clamped, and says how.
  @Test func anInitialDelayBeyondTheDefaultMaximumRaisesTheMaximum() {
    let policy = RetryPolicy(initialDelay: .seconds(3600))
    #expect(policy.initialDelay == .seconds(3600) && policy.maximumDelay == .seconds(3600))
    #expect(policy.delay(beforeRetry: 5) == .seconds(3600))
    #expect(
      policy.adjustments == [
        "Backoff: maximumDelay 30.0 seconds is shorter than initialDelay; using 3600.0 seconds"
      ])
  }

  @Test(arguments: [Duration.zero, .seconds(-1)])
  func anInitialDelayThatWouldRetryWithoutWaitingIsTheDefault(delay: Duration) {
    let policy = RetryPolicy(initialDelay: delay, multiplier: 0)
    #expect(policy.initialDelay == .milliseconds(500) && policy.multiplier == 1)
    #expect(policy.maximumDelay == .seconds(30))
    #expect(policy.adjustments.count == (delay < .zero ? 3 : 2))
    #expect(
      policy.adjustments.last
        == "RetryPolicy: initialDelay 0.0 seconds would retry without waiting; using 0.5 seconds")
  }

  @Test func anInRangePolicyHasNoAdjustment() {
    #expect(RetryPolicy.default.adjustments.isEmpty)
    #expect(RetryPolicy(initialDelay: .seconds(30)).adjustments.isEmpty)
  }
}
