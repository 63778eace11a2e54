import ReduxCoreTesting
import Testing

@testable import QueryCache

@MainActor
@Suite(.timeLimit(.minutes(1))) struct QueryObserverTests {
  let clock = ManualClock()

  @Test func fetchShowsLoadingThenTheValue() async {
    let client = QueryClient(clock: clock)
    let fn = QueryFunction<Int>(.success(1))
    let observer = QueryObserver(client: client, queryKey: "n", queryFn: fn.function)
    #expect(observer.box.data == nil)
    fn.hold()
    let fetch = Task { await observer.fetch() }
    await fn.waitForCalls(1)
    #expect(observer.box.isLoading)
    fn.release()
    await fetch.value
    #expect(observer.box.data == 1)
    #expect(!observer.box.isLoading)
  }

  @Test func refetchWhenCacheIsStale() async {
    let client = QueryClient(clock: clock)
    let fn = QueryFunction<Int>(.success(1), .success(2))
    var completed: [Int] = []
    let observer = QueryObserver(
      client: client, queryKey: "n", options: QueryOptions(staleTime: .seconds(1)),
      queryFn: fn.function, onCompleted: { completed.append($0) })
    await observer.fetch()
    #expect(observer.box.data == 1)
    await observer.fetch()  // fresh: no call
    #expect(observer.box.data == 1 && fn.calls == 1)
    await clock.advance(by: .seconds(1))
    await observer.fetch()  // stale: shown, then refreshed in the same call
    #expect(observer.box.data == 2)
    #expect(completed == [1, 1, 2])
  }

  @Test func aFailedBackgroundRefreshKeepsTheStaleDataAndShowsTheError() async {
    let client = QueryClient(clock: clock)
    let fn = QueryFunction<Int>(.success(1), .failure(NetworkError()))
    let observer = QueryObserver(client: client, queryKey: "n", queryFn: fn.function)
    await observer.fetch()
    await observer.fetch()
    #expect(observer.box.data == 1)
    #expect(observer.box.error is NetworkError)
  }

  @Test func stateHasRefreshedValueAfterInvalidationWithoutARefetchLoop() async {
    let client = QueryClient(clock: clock)
    let fn = QueryFunction<Int>(.success(1), .success(2), .success(3))
    let observer = QueryObserver(client: client, queryKey: ["n", 1], queryFn: fn.function)
    await observer.fetch()
    let subscription = Task { await observer.subscribe() }
    await client.cache.waitUntil { $0.invalidationStreamCount(queryKey: ["n", 1]) > 0 }
    await client.invalidate("n")
    await waitUntil { observer.box.data == 2 }
    // NB: once the subscription has ended, nothing can refetch: the count is final.
    subscription.cancel()
    await subscription.value
    #expect(fn.calls == 2)
    #expect(observer.box.data == 2)
  }

  @Test func valueIsUpdatedBySyncStream() async throws {
    let client = QueryClient(clock: clock)
    let observer = QueryObserver(client: client, queryKey: "n") { 1 }
    await observer.fetch()
    try await client.setQueryData("n", 2)
    await waitUntil { observer.box.data == 2 }
    #expect(observer.box.data == 2)
  }

  @Test func releasingTheObserverStopsObservingTheEntry() async {
    let client = QueryClient(clock: clock)
    var observer: QueryObserver<Int>? = QueryObserver(client: client, queryKey: "n") { 1 }
    await observer?.fetch()
    await client.cache.waitUntil { $0.observerCount(queryKey: "n") > 0 }
    #expect(await client.cache.observerCount(queryKey: "n") == 1)
    observer = nil
    // NB: the observer's isolated deinit ends its sync stream in a task of its own.
    await client.cache.waitUntil { $0.observerCount(queryKey: "n") == 0 }
    #expect(await client.cache.observerCount(queryKey: "n") == 0)
  }

  @Test func appearRefetchesAStaleValueOnlyWhenTheOptionsAskForIt() async {
    let client = QueryClient(clock: clock)
    let fn = QueryFunction<Int>(.success(1), .success(2), .success(3))
    let quiet = QueryObserver(
      client: client, queryKey: "n", options: QueryOptions(refetchOnAppear: false),
      queryFn: fn.function)
    await quiet.appear()  // nothing shown yet: fetches anyway
    #expect(quiet.box.data == 1 && fn.calls == 1)
    await quiet.appear()  // shown, refetch off: no call even though the value is stale
    #expect(fn.calls == 1)

    let eager = QueryObserver(client: client, queryKey: "n", queryFn: fn.function)
    await eager.appear()  // stale (staleTime 0): cached value shown, then refreshed
    #expect(eager.box.data == 2 && fn.calls == 2)
  }
}
