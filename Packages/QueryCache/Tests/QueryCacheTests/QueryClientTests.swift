import ReduxCoreTesting
import Testing

@testable import QueryCache

@Suite(.timeLimit(.minutes(1))) struct QueryClientTests {
  let clock = ManualClock()
  var client: QueryClient { QueryClient(clock: clock) }

  @Test func staleTime0Expiration() async throws {
    let client = client
    let fn = QueryFunction<String>(.success("Alice"))
    let first = await client.fetch(queryKey: "user", queryFn: fn.function)
    #expect(first.isFresh)
    #expect(try first.result.get() == "Alice")
    let second = await client.fetch(queryKey: "user", queryFn: fn.function)
    #expect(!second.isFresh)
    #expect(try second.result.get() == "Alice")
    #expect(fn.calls == 1)
  }

  @Test func staleTimeElapsedExpirationAndAgeEqualToStaleTimeIsStale() async {
    let client = client
    let options = QueryOptions(staleTime: .seconds(1))
    let fn = QueryFunction<String>(.success("Alice"))
    #expect(await client.fetch(queryKey: "user", options: options, queryFn: fn.function).isFresh)
    #expect(await client.fetch(queryKey: "user", options: options, queryFn: fn.function).isFresh)
    await clock.advance(by: .milliseconds(999))
    #expect(await client.fetch(queryKey: "user", options: options, queryFn: fn.function).isFresh)
    await clock.advance(by: .milliseconds(1))
    #expect(!(await client.fetch(queryKey: "user", options: options, queryFn: fn.function).isFresh))
  }

  @Test func firstFetchStoresCacheAndSecondFetchHitsFreshCache() async throws {
    let client = client
    let options = QueryOptions(staleTime: .seconds(60))
    let fn = QueryFunction<String>(.success("Alice"), .success("Bob"))
    _ = await client.fetch(queryKey: "user", options: options, queryFn: fn.function)
    let second = await client.fetch(queryKey: "user", options: options, queryFn: fn.function)
    #expect(second.isFresh)
    #expect(try second.result.get() == "Alice")
    #expect(fn.calls == 1)
    #expect(await client.getQueryData("user", as: String.self) == "Alice")
  }

  @Test func fetchFailurePropagatesAndStoresError() async {
    let client = client
    let fn = QueryFunction<String>(.failure(NetworkError()))
    let result = await client.fetch(queryKey: "user", queryFn: fn.function).result
    #expect(throws: NetworkError.self) { try result.get() }
    #expect(await client.cache.entry(queryKey: "user", as: String.self)?.error is NetworkError)
  }

  @Test(arguments: [false, true])
  func simultaneousFetchesGetSameValueWithSingleRemoteFetch(forced: Bool) async throws {
    let client = client
    let fn = QueryFunction<String>(.success("Alice"))
    fn.hold()
    let fetches = (0..<5).map { _ in
      Task {
        await client.fetch(queryKey: "user", forceRefresh: forced, queryFn: fn.function).result
      }
    }
    await fn.waitForCalls(1)
    await client.cache.waitUntil { $0.joinedCount(queryKey: "user") >= 4 }
    fn.release()
    for fetch in fetches { #expect(try await fetch.value.get() == "Alice") }
    #expect(fn.calls == 1)
    #expect(await client.getQueryData("user", as: String.self) == "Alice")
  }

  @Test func theInFlightSlotIsReleasedOnceSoTheNextForcedFetchRuns() async {
    let client = client
    let fn = QueryFunction<Int>(.success(1), .success(2))
    fn.hold()
    let first = Task { await client.fetch(queryKey: "n", forceRefresh: true, queryFn: fn.function) }
    let second = Task {
      await client.fetch(queryKey: "n", forceRefresh: true, queryFn: fn.function)
    }
    await fn.waitForCalls(1)
    await client.cache.waitUntil { $0.joinedCount(queryKey: "n") >= 1 }
    fn.release()
    _ = await (first.value, second.value)
    let third = await client.fetch(queryKey: "n", forceRefresh: true, queryFn: fn.function)
    #expect(fn.calls == 2)
    #expect((try? third.result.get()) == 2)
  }

  @Test func anInvalidationDuringAFetchDoesNotBringTheOldValueBack() async {
    let client = client
    let fn = QueryFunction<String>(.success("before invalidation"))
    fn.hold()
    let fetch = Task { await client.fetch(queryKey: "user", queryFn: fn.function) }
    await fn.waitForCalls(1)
    await client.invalidate("user")
    fn.release()
    #expect((try? await fetch.value.result.get()) == "before invalidation")
    #expect(await client.getQueryData("user", as: String.self) == nil)
  }

  @Test func aFailedRefreshKeepsTheCachedDataAndRecordsTheError() async {
    let client = client
    let fn = QueryFunction<String>(.success("Alice"), .failure(NetworkError()))
    _ = await client.fetch(queryKey: "user", queryFn: fn.function)
    let refresh = await client.fetch(queryKey: "user", forceRefresh: true, queryFn: fn.function)
    #expect(throws: NetworkError.self) { try refresh.result.get() }
    let entry = await client.cache.entry(queryKey: "user", as: String.self)
    #expect(entry?.data == "Alice")
    #expect(entry?.error is NetworkError)
  }

  @Test func aWrongValueTypeForAKeyIsATypedErrorAndOverwritesNothing() async {
    let client = client
    _ = await client.fetch(queryKey: "user") { "Alice" }
    let wrong = await client.fetch(queryKey: "user", forceRefresh: true) { 42 }
    #expect(throws: QueryError.typeMismatch(key: "user", expected: "Int", stored: "String")) {
      try wrong.result.get()
    }
    await #expect(throws: QueryError.self) { try await client.setQueryData("user", 42) }
    #expect(await client.getQueryData("user", as: String.self) == "Alice")
  }

  @Test func invalidationReachesEveryKeyUnderAPrefixUnlessExact() async {
    let client = client
    for key: QueryKey in [["users", 1], ["users", 2], "users", "posts"] {
      _ = try? await client.setQueryData(key, "\(key)")
    }
    await client.invalidate("users", exact: true)
    #expect(await client.getQueryData("users", as: String.self) == nil)
    #expect(await client.getQueryData(["users", 1], as: String.self) == "users/1")
    await client.invalidate("users")
    #expect(await client.getQueryData(["users", 1], as: String.self) == nil)
    #expect(await client.getQueryData(["users", 2], as: String.self) == nil)
    #expect(await client.getQueryData("posts", as: String.self) == "posts")
  }

  @Test func setQueryDataReturnsTheValueToRollBackTo() async throws {
    let client = client
    try await client.setQueryData("todo", "write tests")
    let previous = try await client.setQueryData("todo", "write tests (optimistic)")
    #expect(previous == "write tests")
    // The mutation failed: roll back.
    try await client.setQueryData("todo", previous!)
    #expect(await client.getQueryData("todo", as: String.self) == "write tests")
  }

  @Test func cancelQueriesCancelsTheFetchInFlightAndFreesItsSlot() async {
    let client = client
    let fn = QueryFunction<String>(.success("Alice"))
    fn.hold()
    let fetch = Task { await client.fetch(queryKey: ["user", 1], queryFn: fn.function) }
    await fn.waitForCalls(1)
    await client.cancelQueries("user")
    fn.release()  // the query function ignores cancellation and returns anyway
    let cancelled = await fetch.value.result
    #expect(throws: CancellationError.self) { try cancelled.get() }
    let again = await client.fetch(queryKey: ["user", 1], queryFn: fn.function)
    #expect((try? again.result.get()) == "Alice")
    #expect(fn.calls == 2)
  }

  /// The docs promise that cancelQueries lets its callers go at once: a query function that
  /// ignores cancellation (held here until the end) must not hold them.
  @Test func cancelQueriesLetsEveryCallerGoWhileTheFunctionStillRuns() async {
    let client = client
    let fn = QueryFunction<String>(.success("Alice"))
    fn.hold()
    let first = Task { await client.fetch(queryKey: ["user", 1], queryFn: fn.function) }
    await fn.waitForCalls(1)
    let second = Task { await client.fetch(queryKey: ["user", 1], queryFn: fn.function) }
    await client.cache.waitUntil { $0.joinedCount(queryKey: ["user", 1]) >= 1 }
    await client.cancelQueries("user")
    for caller in [first, second] {
      let result = await caller.value.result  // NB: returns while fn is still held
      #expect(throws: CancellationError.self) { try result.get() }
    }
    fn.release()  // the orphaned function returns now: nothing caches its result
    #expect(await client.getQueryData(["user", 1], as: String.self) == nil)
    #expect(fn.calls == 1)
  }

  @Test func fetchQueryRevalidatesAStaleValue() async throws {
    let client = client
    let fn = QueryFunction<Int>(.success(1), .success(2))
    #expect(try await client.fetchQuery(queryKey: "n", queryFn: fn.function).get() == 1)
    #expect(try await client.fetchQuery(queryKey: "n", queryFn: fn.function).get() == 2)
  }

  @Test func anUnobservedEntryIsCollectedGcTimeAfterItsFetch() async {
    let client = client
    let options = QueryOptions(gcTime: .seconds(10))
    _ = await client.fetch(queryKey: "user", options: options) { "Alice" }
    await clock.advance(by: .milliseconds(9_999))
    #expect(await client.cache.count == 1)
    await clock.advance(by: .milliseconds(1))
    await client.cache.waitUntil { $0.count == 0 }
  }

  @Test func anObservedEntryIsKeptAndCollectedGcTimeAfterItsLastObserverLeft() async {
    let client = client
    let options = QueryOptions(gcTime: .seconds(10))
    do {
      let stream = await client.createSyncStream(queryKey: "user")
      _ = await client.fetch(queryKey: "user", options: options) { "Alice" }
      await clock.advance(by: .seconds(60))
      #expect(await client.cache.count == 1)
      withExtendedLifetime(stream) {}
    }
    // The observer left: its stream is gone.
    await client.cache.waitUntil { $0.observerCount(queryKey: "user") == 0 }
    await clock.advance(by: .seconds(10))
    await client.cache.waitUntil { $0.count == 0 }
  }

  @Test func invalidationYieldsAnEventForItsKeyAndPrefixesOnly() async {
    var client: QueryClient? = QueryClient(clock: clock)
    let stream = await client!.createInvalidationStream(queryKey: ["users", 1])
    var events = stream.makeAsyncIterator()
    await client!.invalidate("users")  // a prefix of the key: an event
    #expect(await events.next() != nil)
    await client!.invalidate("posts")  // another key: none
    await client!.invalidate(["users", 2])  // a sibling: none
    client = nil  // NB: a released client's streams end: what is left in this one is all
    #expect(await events.next() == nil)
  }
}
