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
}
