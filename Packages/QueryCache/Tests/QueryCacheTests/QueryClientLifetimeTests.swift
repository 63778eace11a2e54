import ReduxCoreTesting
import Testing

@testable import QueryCache

@Suite(.timeLimit(.minutes(1))) struct QueryClientLifetimeTests {
  /// A gc timer waits `gcTime` (300 s by default; forever on a clock nobody advances): it must
  /// not keep a released client's cache alive until then.
  @Test func releasingAClientWithPendingCollectionsFreesItsCacheAtOnce() async throws {
    let clock = ManualClock()
    weak var weakStorage: QueryClientCache?
    do {
      let client = QueryClient(clock: clock)
      let fetched = await client.fetch(queryKey: "user") { "Alice" }
      #expect(try fetched.result.get() == "Alice")
      #expect(await client.cache.count == 1)  // unobserved: its collection is scheduled
      weakStorage = client.cache
    }
    #expect(weakStorage == nil)
  }
}
