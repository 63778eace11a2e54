import EntityTracking
import Logging
import Persistence
import Testing

/// A failing `persist`: nothing dropped, everything reported, retried with backoff.
@MainActor
@Suite struct FlushFailureTests {
  @Test func aFailedFlushStaysPendingIsReportedAndRetriedWithBackoff() async throws {
    var harness = Harness()
    harness.reduce { $0.items.upsert(Item(id: 1, name: "a")) }
    harness.recorder.failNext(2)

    // Flush at 250 ms fails: the change is still pending, the app can see why.
    await harness.advance(by: .milliseconds(250), thenAwaitCall: 1)
    let status = harness.persistence.status
    #expect(status.pendingCount == 1)
    #expect(status.consecutiveFailures == 1)
    #expect(status.lastError is DiskError)
    #expect(status.lastFlush == nil)
    #expect(
      harness.logs.messages(at: .error) == [
        "flush failed (1 changes still pending): DiskError(); retry 1 in 0.5 seconds"
      ])

    // A newer change to the same id coalesces over the failed one and waits for the retry.
    harness.reduce { $0.items.modify(1) { $0.name = "b" } }
    await harness.advance(by: .milliseconds(499))
    #expect(harness.recorder.calls.count == 1)
    await harness.advance(by: .milliseconds(1), thenAwaitCall: 2)  // retry 1 at +500 ms fails
    #expect(harness.persistence.status.consecutiveFailures == 2)

    await harness.advance(by: .milliseconds(999))  // retry 2 waits twice as long
    #expect(harness.recorder.calls.count == 2)
    await harness.advance(by: .milliseconds(1), thenAwaitCall: 3)
    #expect(harness.recorder.calls.map(\.writes) == [["1=a"], ["1=b"], ["1=b"]])
    #expect(harness.persistence.status.pendingCount == 0)
    #expect(harness.persistence.status.consecutiveFailures == 0)
    #expect(harness.persistence.status.lastError == nil)
    #expect(harness.persistence.status.lastFlush?.number == 1)
  }

  @Test func flushThrowsWhenItCouldNotPersist() async throws {
    var harness = Harness()
    harness.reduce { $0.items.upsert(Item(id: 1, name: "a")) }
    harness.recorder.failNext(1)
    guard case .flushFailed(let underlying, pending: 1)? = await harness.flushError() else {
      Issue.record("flush() did not report the failure")
      return
    }
    #expect(underlying is DiskError)
    // An explicit flush retries at once, whatever the backoff.
    try await harness.persistence.flush()
    #expect(harness.persistence.status.pendingCount == 0)
  }

  @Test func theBackoffDoublesUpToItsMaximum() {
    let policy = RetryPolicy(
      initialDelay: .milliseconds(500), multiplier: 2, maximumDelay: .seconds(30))
    #expect(
      (1...8).map(policy.delay(beforeRetry:)) == [
        .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16),
        .seconds(30), .seconds(30),
      ])
  }
}
