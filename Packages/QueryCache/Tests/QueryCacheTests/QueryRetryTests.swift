import QueryCache
import ReduxCore
import Testing

@Suite struct QueryRetryTests {
  @Test func theDefaultWaitIsOneSecondDoublingToThirtySeconds() {
    let retry = QueryRetry(count: 3)
    #expect(retry.backoff == Backoff(initialDelay: .seconds(1), maximumDelay: .seconds(30)))
    #expect(
      (1...7).map(retry.delay(beforeRetry:)) == [1, 2, 4, 8, 16, 30, 30].map { .seconds($0) })
    #expect(retry.delay(beforeRetry: .max) == .seconds(30))
  }

  @Test func noneRetriesNothing() {
    #expect(QueryRetry.none.count == 0)
    #expect(QueryRetry.none == QueryRetry(count: 0))
  }

  @Test func itsDelaysReadAndWriteItsBackoff() {
    var retry = QueryRetry(
      count: 2,
      backoff: Backoff(initialDelay: .milliseconds(100), multiplier: 10, maximumDelay: .seconds(5)))
    #expect(retry.initialDelay == .milliseconds(100))
    #expect(retry.delay(beforeRetry: 2) == .seconds(1))
    retry.initialDelay = .milliseconds(200)
    #expect(retry.delay(beforeRetry: 2) == .seconds(2))
    retry.maximumDelay = .seconds(1)
    #expect(retry.delay(beforeRetry: 2) == .seconds(1))
  }
}
