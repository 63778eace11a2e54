import InMemoryLogging
import Logging
import ReduxCoreTesting
import Testing

@testable import QueryCache

/// A fresh hit is served from the main actor without entering the cache actor, and never serves
/// a value the cache would refetch: staleness, invalidation, `setQueryData` and collection show
/// through the fast path as soon as the call that made them returns.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct QueryClientFreshReadTests {
  let clock = ManualClock()
  let fresh = QueryOptions(staleTime: .seconds(60))

  /// Whether `operation` ran to its end without the main actor running anything else: a job
  /// enqueued on the main actor before it runs only if `operation` suspends (an actor hop).
  func runsWithoutSuspending(_ operation: () async -> Void) async -> Bool {
    var otherJobRan = false
    let other = Task { @MainActor in otherJobRan = true }
    await operation()
    let suspended = otherJobRan
    await other.value
    return !suspended
  }

  @Test func aFreshHitIsServedOnTheMainActorWithoutSuspending() async throws {
    let client = QueryClient(clock: clock)
    let fn = QueryFunction<String>(.success("Alice"))
    _ = await client.fetch(queryKey: ["user", 1], options: fresh, queryFn: fn.function)
    #expect(
      client.freshQueryData(QueryKey("user", 1), as: String.self, staleTime: .seconds(60))
        == "Alice")
    var hit: QueryResult<String>?
    let withoutSuspending = await runsWithoutSuspending {
      hit = await client.fetchResult(queryKey: ["user", 1], options: fresh, queryFn: fn.function)
    }
    #expect(withoutSuspending)
    let result = try #require(hit)
    #expect(try result.result.get() == "Alice")
    #expect(result.isFresh && result.source == .cache && result.updatedAt == .zero)
    #expect(fn.calls == 1)
  }

  @Test func aStaleValueIsNotServedAsFreshAndIsRevalidated() async throws {
    let client = QueryClient(clock: clock)
    let fn = QueryFunction<String>(.success("Alice"), .success("Bob"))
    _ = await client.fetch(queryKey: "user", options: fresh, queryFn: fn.function)
    await clock.advance(by: .seconds(60))  // as old as staleTime: stale
    #expect(client.freshQueryData("user", as: String.self, staleTime: .seconds(60)) == nil)
    var stale: (isFresh: Bool, result: Result<String, any Error>)?
    let withoutSuspending = await runsWithoutSuspending {
      stale = await client.fetch(queryKey: "user", options: fresh, queryFn: fn.function)
    }
    #expect(!withoutSuspending)  // through the cache actor
    #expect(stale?.isFresh == false)
    // An observer shows the stale value, then revalidates it.
    let observer = QueryObserver(
      client: client, queryKey: "user", options: fresh, queryFn: fn.function)
    #expect(observer.box.data == nil)  // not shown as fresh
    await observer.fetch()
    #expect(observer.box.data == "Bob" && fn.calls == 2)
    #expect(client.freshQueryData("user", as: String.self, staleTime: .seconds(60)) == "Bob")
  }

  @Test func anObserverShowsAFreshCachedValueBeforeAnyAwait() async throws {
    let client = QueryClient(clock: clock)
    try await client.setQueryData(["user", 1], "Alice")
    try await client.setQueryData(["user", 2], "Bob")
    let observer = QueryObserver(client: client, queryKey: ["user", 1], options: fresh) { "?" }
    #expect(observer.box.data == "Alice" && observer.box.source == .cache)
    observer.queryKey = ["user", 2]
    #expect(observer.box.data == "Bob")
    observer.queryKey = ["user", 3]
    #expect(observer.box.data == nil)
  }

  @Test func invalidationIsVisibleAtOnceThroughTheFastPath() async throws {
    let client = QueryClient(clock: clock)
    let fn = QueryFunction<String>(.success("Alice"), .success("Bob"))
    _ = await client.fetch(queryKey: ["user", 1], options: fresh, queryFn: fn.function)
    await client.invalidate("user")
    #expect(client.freshQueryData(["user", 1], as: String.self, staleTime: .seconds(60)) == nil)
    let refetched = await client.fetch(queryKey: ["user", 1], options: fresh, queryFn: fn.function)
    #expect(try refetched.result.get() == "Bob" && fn.calls == 2)
  }

  @Test func setQueryDataIsVisibleAtOnceThroughTheFastPath() async throws {
    let client = QueryClient(clock: clock)
    let fn = QueryFunction<String>(.success("Alice"))
    _ = await client.fetch(queryKey: "user", options: fresh, queryFn: fn.function)
    await clock.advance(by: .seconds(30))
    try await client.setQueryData("user", "Carol")
    #expect(client.freshQueryData("user", as: String.self, staleTime: .seconds(60)) == "Carol")
    let hit = await client.fetchResult(queryKey: "user", options: fresh, queryFn: fn.function)
    #expect(try hit.result.get() == "Carol" && hit.updatedAt == .seconds(30) && fn.calls == 1)
    await clock.advance(by: .seconds(59))  // fresh for 60 s from the set, not from the fetch
    #expect(client.freshQueryData("user", as: String.self, staleTime: .seconds(60)) == "Carol")
  }

  @Test func garbageCollectionIsVisibleAtOnceThroughTheFastPath() async throws {
    let client = QueryClient(clock: clock)
    let options = QueryOptions(staleTime: .seconds(3_600), gcTime: .seconds(10))
    let fn = QueryFunction<String>(.success("Alice"), .success("Bob"))
    _ = await client.fetch(queryKey: "user", options: options, queryFn: fn.function)
    await clock.advance(by: .seconds(10))
    await client.cache.waitUntil { $0.count == 0 }
    #expect(client.cache.cachedValueCount == 0)
    #expect(client.freshQueryData("user", as: String.self, staleTime: .seconds(3_600)) == nil)
    let refetched = await client.fetch(queryKey: "user", options: options, queryFn: fn.function)
    #expect(try refetched.result.get() == "Bob" && fn.calls == 2)
  }

  @Test func aLongerGcTimeGoesThroughTheCacheWhichExtendsIt() async throws {
    let client = QueryClient(clock: clock)
    let short = QueryOptions(staleTime: .seconds(3_600), gcTime: .seconds(10))
    let long = QueryOptions(staleTime: .seconds(3_600), gcTime: .seconds(100))
    _ = await client.fetch(queryKey: "user", options: short) { "Alice" }
    let withoutSuspending = await runsWithoutSuspending {
      _ = await client.fetch(queryKey: "user", options: long) { "Bob" }
    }
    #expect(!withoutSuspending)
    #expect(client.cache.cachedValue("user")?.gcTime == .seconds(100))
    let again = await runsWithoutSuspending {
      _ = await client.fetch(queryKey: "user", options: long) { "Bob" }
    }
    #expect(again)
  }

  @Test func aTypeMismatchGoesThroughTheCacheAndIsLogged() async throws {
    let handler = InMemoryLogHandler()
    let client = QueryClient(clock: clock, logger: Logger(label: "test") { _ in handler })
    try await client.setQueryData("user", "Alice")
    #expect(client.freshQueryData("user", as: Int.self, staleTime: .seconds(60)) == nil)
    let mismatch = await client.fetch(queryKey: "user", options: fresh) { 1 }
    #expect(throws: QueryError.self) { try mismatch.result.get() }
    let messages = handler.entries.filter { $0.level >= .warning }.map { "\($0.message)" }
    #expect(
      messages.contains { $0.contains("freshQueryData(user, as: Int): the key holds String") })
    #expect(messages.contains { $0.contains("query user:") })
  }
}

/// After most of its keys are collected, the cache gives their buckets back.
@Suite(.timeLimit(.minutes(1))) struct QueryClientCacheCapacityTests {
  @Test func theCacheReleasesCapacityAfterCollectingMostKeys() async throws {
    let clock = ManualClock()
    let client = QueryClient(clock: clock)
    let shortLived = QueryOptions(gcTime: .seconds(10))
    let longLived = QueryOptions(gcTime: .seconds(1_000))
    for index in 0..<2_000 {
      _ = await client.fetch(queryKey: QueryKey("item", index), options: shortLived) { index }
    }
    for index in 0..<10 {
      _ = await client.fetch(queryKey: QueryKey("kept", index), options: longLived) { index }
    }
    let full = await client.cache.capacities
    #expect(full.entries >= 2_010 && full.values >= 2_010)
    await clock.advance(by: .seconds(10))
    await client.cache.waitUntil { $0.count == 10 }
    let shrunk = await client.cache.capacities
    #expect(shrunk.entries <= 64 && shrunk.values <= 64)
    // The entries kept are intact, and still served fresh by either path.
    for index in 0..<10 {
      #expect(await client.getQueryData(QueryKey("kept", index), as: Int.self) == index)
    }
    #expect(client.cache.cachedValueCount == 10)
  }
}
