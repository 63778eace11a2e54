import ReduxCoreTesting
import Testing

@testable import QueryCache

@Suite(.timeLimit(.minutes(1))) struct RetryAndPollingTests {
  let clock = ManualClock()

  @Test func aFailingQueryIsRetriedWithExponentialBackoffOnTheClock() async throws {
    let client = QueryClient(clock: clock)
    let fn = QueryFunction<String>(
      .failure(NetworkError()), .failure(NetworkError()), .success("Alice"))
    let options = QueryOptions(retry: QueryRetry(count: 3, initialDelay: .seconds(1)))
    let fetch = Task {
      await client.fetch(queryKey: "user", options: options, queryFn: fn.function)
    }
    await fn.waitForCalls(1)
    await clock.waitForSleepers()
    await clock.advance(by: .milliseconds(999))
    #expect(fn.calls == 1)
    await clock.advance(by: .milliseconds(1))
    await fn.waitForCalls(2)
    await clock.waitForSleepers()
    await clock.advance(by: .milliseconds(1_999))  // the second wait is twice as long
    #expect(fn.calls == 2)
    await clock.advance(by: .milliseconds(1))
    #expect(try await fetch.value.result.get() == "Alice")
    #expect(fn.calls == 3)
  }

  @Test func retriesStopAtTheCountAndTheErrorReachesTheCaller() async {
    let client = QueryClient(clock: clock)
    let fn = QueryFunction<String>(.failure(NetworkError()))
    let options = QueryOptions(retry: QueryRetry(count: 1, initialDelay: .seconds(1)))
    let fetch = Task {
      await client.fetch(queryKey: "user", options: options, queryFn: fn.function)
    }
    await clock.waitForSleepers()
    await clock.advance(by: .seconds(1))
    let result = await fetch.value.result
    #expect(throws: NetworkError.self) { try result.get() }
    #expect(fn.calls == 2)
  }

  @Test func theDefaultIsNoRetry() async {
    let client = QueryClient(clock: clock)
    let fn = QueryFunction<String>(.failure(NetworkError()))
    _ = await client.fetch(queryKey: "user", queryFn: fn.function)
    #expect(fn.calls == 1)
    #expect(QueryOptions().retry == .none)
  }

  @MainActor
  @Test func aSubscribedObserverPollsEveryRefetchInterval() async {
    let client = QueryClient(clock: clock)
    let fn = QueryFunction<Int>(.success(1), .success(2), .success(3))
    let observer = QueryObserver(
      client: client, queryKey: "n", options: QueryOptions(refetchInterval: .seconds(5)),
      queryFn: fn.function)
    await observer.fetch()
    let subscription = Task { await observer.subscribe() }
    for expected in [2, 3] {
      await clock.waitForSleepers()
      await clock.advance(by: .seconds(5))
      await waitUntil { observer.box.data == expected }
    }
    subscription.cancel()
    await subscription.value
    #expect(fn.calls == 3)
  }
}
