import Testing

@testable import QueryCache

/// `Duration.seconds(Int64.max)`, the usual way to write "never", as a stale time and a gc time:
/// it never traps the host (a system clock cannot hold such a deadline); the entry stays fresh
/// and cached, with no timer.
///
/// NB: on the real clock, on purpose: a `ManualClock` holds any deadline, so only a system
/// clock shows the trap. Nothing here waits for time to pass.
@Suite(.timeLimit(.minutes(1))) struct NeverDurationTests {
  @Test func aQueryThatNeverGoesStaleNorIsCollectedStaysCached() async throws {
    let never = Duration.seconds(Int64.max)
    let client = QueryClient(clock: ContinuousClock())
    let options = QueryOptions(staleTime: never, gcTime: never)
    let fetched = await client.fetch(queryKey: "user", options: options) { "Alice" }
    #expect(try fetched.result.get() == "Alice")
    // Unobserved: its collection is scheduled, forever away.
    #expect(await client.cache.count == 1)
    let again = await client.fetch(queryKey: "user", options: options) { "Bob" }
    #expect(again.isFresh)
    #expect(try again.result.get() == "Alice")
  }
}
