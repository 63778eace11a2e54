import EntityTracking
import Persistence
import Synchronization
import Testing

/// `Duration.seconds(Int64.max)`, the usual way to write "never", as a debounce, a `maxWait` and
/// a retry backoff: it never traps the host (a system clock cannot hold such a deadline); the
/// timers wait with no timer, and an explicit flush still persists at once.
///
/// NB: on the real clock, on purpose: a `ManualClock` holds any deadline, so only a system
/// clock shows the trap. Nothing here waits for time to pass.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct NeverDurationTests {
  @Test func aMiddlewareWhoseTimersNeverFireFlushesWhenAsked() async throws {
    let never = Duration.seconds(Int64.max)
    let failures = Mutex(1)
    let persisted = Mutex<[String]>([])
    let persistence = PersistenceMiddleware<AppState>(
      writers: [
        StateWriter(keyPath: \.tags) { writes, _ in
          try failures.withLock { remaining in
            guard remaining == 0 else {
              remaining -= 1
              throw NeverFlushed()
            }
          }
          persisted.withLock { $0 += writes.map(\.id) }
        }
      ],
      debounce: never, maxWait: never,
      retry: RetryPolicy(initialDelay: never, maximumDelay: never), clock: ContinuousClock())
    var state = AppState()
    state.tags.upsert(Tag(id: "a"))
    persistence.afterReduce(state: &state)  // the debounce and maxWait timers, forever away
    await #expect(throws: PersistenceMiddlewareError.self) { try await persistence.flush() }
    // The retry waits forever; an explicit flush does not.
    try await persistence.flush()
    #expect(persisted.withLock { $0 } == ["a"])
    try await persistence.shutdown()
  }
}

private struct NeverFlushed: Error {}
