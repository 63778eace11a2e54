import ReduxCoreTesting
import Testing

@testable import QueryCache

/// What a screen says about a query besides its value: where it came from, when it was cached,
/// whether it is stale, and whether a fetch runs behind it.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct QueryStatusTests {
  let clock = ManualClock()

  @Test func aFetchResultSaysWhereItsValueCameFromAndWhenItWasCached() async {
    let client = QueryClient(clock: clock)
    let fn = QueryFunction<Int>(.success(1), .success(2))
    let options = QueryOptions(staleTime: .seconds(5))
    await clock.advance(by: .seconds(5))
    let first = await client.fetchResult(queryKey: "n", options: options, queryFn: fn.function)
    #expect(first.value == 1 && first.source == .network && first.isFresh)
    #expect(first.updatedAt == .seconds(5))

    await clock.advance(by: .seconds(4))  // 4 s old: fresh
    let hit = await client.fetchResult(queryKey: "n", options: options, queryFn: fn.function)
    #expect(hit.value == 1 && hit.source == .cache && hit.isFresh)
    #expect(hit.updatedAt == .seconds(5))

    await clock.advance(by: .seconds(1))  // 5 s old: stale
    let stale = await client.fetchResult(queryKey: "n", options: options, queryFn: fn.function)
    #expect(stale.value == 1 && stale.source == .cache && !stale.isFresh)
    let forced = await client.fetchResult(
      queryKey: "n", options: options, forceRefresh: true, queryFn: fn.function)
    #expect(forced.value == 2 && forced.source == .network && forced.updatedAt == .seconds(10))
  }

  @Test func callersJoiningOneFetchAllGetItsCacheTime() async {
    let client = QueryClient(clock: clock)
    let fn = QueryFunction<Int>(.success(7))
    fn.hold()
    let first = Task { await client.fetchResult(queryKey: "n", queryFn: fn.function) }
    await fn.waitForCalls(1)
    let second = Task { await client.fetchResult(queryKey: "n", queryFn: fn.function) }
    await client.cache.waitUntil { $0.joinedCount(queryKey: "n") > 0 }
    await clock.advance(by: .seconds(3))
    fn.release()
    for caller in [first, second] {
      let fetched = await caller.value
      #expect(fetched.value == 7 && fetched.source == .network)
      #expect(fetched.updatedAt == .seconds(3))
    }
  }

  @Test func aValueInvalidatedInFlightOrAFailureWasNotCached() async {
    let client = QueryClient(clock: clock)
    let fn = QueryFunction<Int>(.success(1), .failure(NetworkError()))
    fn.hold()
    let invalidated = Task { await client.fetchResult(queryKey: "n", queryFn: fn.function) }
    await fn.waitForCalls(1)
    await client.invalidate("n")
    fn.release()
    let result = await invalidated.value
    #expect(result.value == 1 && result.updatedAt == nil)
    let failed = await client.fetchResult(queryKey: "n", queryFn: fn.function)
    #expect(failed.value == nil && failed.updatedAt == nil && failed.source == .network)
  }

  @Test func anObserverTellsTheFirstLoadFromARefreshBehindAShownValue() async {
    let client = QueryClient(clock: clock)
    let fn = QueryFunction<Int>(.success(1), .success(2))
    let observer = QueryObserver(
      client: client, queryKey: "n", options: QueryOptions(staleTime: .seconds(10)),
      queryFn: fn.function)
    #expect(observer.isStale && observer.box.source == nil)

    fn.hold()
    let load = Task { await observer.fetch() }
    await fn.waitForCalls(1)
    #expect(observer.box.isLoading && observer.box.isFetching)
    fn.release()
    await load.value
    #expect(!observer.box.isLoading && !observer.box.isFetching)
    #expect(observer.box.source == .network && observer.box.dataUpdatedAt == .zero)
    #expect(!observer.isStale)

    await clock.advance(by: .seconds(10))
    #expect(observer.isStale)
    fn.hold()
    let refresh = Task { await observer.fetch() }
    await fn.waitForCalls(2)
    #expect(observer.box.data == 1 && observer.box.source == .cache)  // shown while refreshed
    #expect(!observer.box.isLoading && observer.box.isFetching)
    fn.release()
    await refresh.value
    #expect(observer.box.data == 2 && observer.box.source == .network)
    #expect(observer.box.dataUpdatedAt == .seconds(10) && !observer.isStale)
  }

  @Test func aValueAnotherObserverFetchedCameThroughTheCache() async {
    let client = QueryClient(clock: clock)
    let fn = QueryFunction<Int>(.success(1), .success(2))
    let shown = QueryObserver(client: client, queryKey: "n", queryFn: fn.function)
    await shown.fetch()
    #expect(shown.box.source == .network)
    let other = QueryObserver(client: client, queryKey: "n", queryFn: fn.function)
    await clock.advance(by: .seconds(1))
    await other.refresh()
    await waitUntil { shown.box.data == 2 }
    #expect(shown.box.source == .cache && shown.box.dataUpdatedAt == .seconds(1))
  }
}
