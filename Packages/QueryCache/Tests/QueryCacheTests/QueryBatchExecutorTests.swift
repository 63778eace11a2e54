import ReduxCoreTesting
import Testing

@testable import QueryCache

@Suite(.timeLimit(.minutes(1))) struct QueryBatchExecutorTests {
  let clock = ManualClock()

  @Test func multipleCallIntoSingleCall() async {
    let executor = QueryBatchExecutor(clock: clock)
    let runs = Counter()
    let calls = (0..<5).map { _ in
      Task { await executor.batchExecution(queryKey: "user") { runs.increment() } }
    }
    await clock.waitForSleepers()  // the batch waits out its debounce window
    await clock.advance(by: .milliseconds(100))
    for call in calls { await call.value }
    #expect(runs.value == 1)
    #expect(await executor.batchCount == 0)
  }

  @Test func otherCallsResolvedAfterFirstCallResolved() async {
    let executor = QueryBatchExecutor(clock: clock)
    let fn = QueryFunction<Void>(.success(()))
    fn.hold()
    let first = Task {
      await executor.batchExecution(queryKey: "user") { _ = try? await fn.function() }
    }
    await clock.waitForSleepers()  // the batch waits out its debounce window
    let returned = Counter()
    let second = Task {
      await executor.batchExecution(queryKey: "user") { _ = try? await fn.function() }
      returned.increment()
    }
    await clock.advance(by: .milliseconds(100))
    await fn.waitForCalls(1)
    #expect(returned.value == 0)
    fn.release()
    await first.value
    await second.value
    #expect(fn.calls == 1)
  }

  @Test func aRequestAfterTheExecutionStartsANewBatch() async {
    let executor = QueryBatchExecutor(clock: clock)
    let runs = Counter()
    for _ in 0..<2 {
      let call = Task { await executor.batchExecution(queryKey: "user") { runs.increment() } }
      await clock.waitForSleepers()  // the batch waits out its debounce window
      await clock.advance(by: .milliseconds(100))
      await call.value
    }
    #expect(runs.value == 2)
  }
}
