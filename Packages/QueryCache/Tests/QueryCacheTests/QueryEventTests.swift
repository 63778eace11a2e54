import ReduxCoreTesting
import Synchronization
import Testing

@testable import QueryCache

/// What a client tells its `onEvent`: the hits, fetches, invalidations and collections a
/// developer tool shows beside a store's actions.
@Suite(.timeLimit(.minutes(1))) struct QueryEventTests {
  final class Events: Sendable {
    private let events = Mutex<[String]>([])
    var all: [String] { events.withLock { $0 } }
    func record(_ event: QueryEvent) { events.withLock { $0.append(event.description) } }
  }

  @Test func everyFetchHitInvalidationAndCollectionIsTold() async throws {
    let events = Events()
    let clock = ManualClock()
    let client = QueryClient(clock: clock, onEvent: events.record)
    let options = QueryOptions(staleTime: .seconds(10), gcTime: .seconds(60))
    _ = await client.fetch(queryKey: ["user", 1], options: options) { "Ada" }
    _ = await client.fetch(queryKey: ["user", 1], options: options) { "not called" }
    await clock.advance(by: .seconds(10))
    _ = await client.fetch(queryKey: ["user", 1], options: options) { "stale" }
    _ = await client.fetch(queryKey: ["user", 2], options: options) {
      throw CancellationError()
    }
    await client.invalidate(["user"])
    await clock.advance(by: .seconds(60))
    await client.cache.waitUntil { $0.count == 0 }
    let all = events.all
    #expect(
      all.prefix(6) == [
        "fetch user/1", "fetched user/1", "hit user/1 (fresh)", "hit user/1 (stale)",
        "fetch user/2", "fetched user/2 (not cached)",
      ])
    // NB: the keys of one invalidation, and of one clock step, come in no particular order.
    #expect(all.dropFirst(6).prefix(2).sorted() == ["invalidated user/1", "invalidated user/2"])
    #expect(all.dropFirst(8).sorted() == ["collected user/1", "collected user/2"])
  }
}
