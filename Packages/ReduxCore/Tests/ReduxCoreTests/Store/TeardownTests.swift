import ReduxCore
import ReduxCoreTesting
import Testing

@Suite(.timeLimit(.minutes(1))) @MainActor
struct TeardownTests {
  @Test func releasingTheStoreCancelsItsTasksAndFreesEverything() async {
    let cancelled = Trace()
    let longRunning = Middle(id: "long-running") { context in
      context.task { _ in
        do {
          try await Gate().wait()
        } catch {
          cancelled.append("cancelled")
          throw error
        }
      }
      context.next()
    }
    var store: TestStore?
    weak var weakState: TestState?
    do {
      let state = TestState()
      weakState = state
      store = TestStore(initialState: state, middlewares: [longRunning], reducers: [counter])
    }
    weak let weakStore = store
    await store?.dispatchWithResult(.run)
    let tasks = store!.tasks
    #expect(tasks.runningTaskCount == 1)
    store = nil
    await tasks.waitUntilIdle()
    #expect(weakStore == nil)
    #expect(weakState == nil)
    #expect(tasks.isShutdown)
    #expect(cancelled.all == ["cancelled"])
  }

  @Test func shutdownResumesPendingDispatchWithResult() async {
    let box = StoreBox()
    let stopper = Middle(id: "stopper") { context in
      if context.action == .run { box.store?.shutdown() }
      context.next()
    }
    let store = TestStore(initialState: TestState(), middlewares: [stopper], reducers: [counter])
    box.store = store
    store.dispatch(.run)
    await #expect(throws: DispatchError.shutdown) {
      try await store.tryDispatchWithResult(.inc)
    }
    #expect(store.value == 0)
  }

  @Test func shutdownLogsEveryDiscardedAction() async {
    let logs = Logs()
    let store = TestStore(initialState: TestState(), reducers: [counter], onLog: logs.onLog)
    store.dispatch(.inc)
    store.dispatch(.add(2))
    store.shutdown()
    #expect(
      logs.events.map(\.description) == [
        "discarded 'inc': store shut down", "discarded 'add': store shut down",
        "shut down, 2 queued action(s) discarded",
      ])
    await store.waitUntilActionsProcessed()
    #expect(store.value == 0)
  }

  @Test func shutdownMidBatchCountsTheRestOfTheBatchAndTheQueue() async {
    let logs = Logs()
    let box = StoreBox()
    let stopper = Middle(id: "stopper") { context in
      if context.action == .run {
        context.dispatch(.add(10))  // queued behind the running batch
        box.store?.shutdown()
      }
      context.next()
    }
    let store = TestStore(
      initialState: TestState(), middlewares: [stopper], reducers: [counter], onLog: logs.onLog)
    box.store = store
    // One batch: run (shuts down), then inc and add(2), which never run.
    store.dispatch(.run)
    store.dispatch(.inc)
    store.dispatch(.add(2))
    await store.waitUntilActionsProcessed()
    #expect(
      logs.events.map(\.description) == [
        "discarded 'inc': store shut down", "discarded 'add': store shut down",
        "discarded 'add': store shut down", "shut down, 3 queued action(s) discarded",
      ])
    #expect(store.value == 0)
  }

  @Test func dispatchAfterShutdownIsRefusedAndReported() async {
    let logs = Logs()
    let store = TestStore(initialState: TestState(value: 5), reducers: [counter], onLog: logs.onLog)
    store.shutdown()
    store.shutdown()
    #expect(!store.dispatch(.inc) { _ in })
    #expect(throws: DispatchError.shutdown) { try store.tryDispatch(.inc) }
    let state = await store.dispatchWithResult(.inc)
    #expect(state.value == 5)
    #expect(logs.events.filter { $0.description == "refused 'inc': store shut down" }.count == 3)
    #expect(logs.events.filter { $0.description.hasPrefix("shut down") }.count == 1)
  }

  @Test func taskStartedAfterShutdownIsRefusedAndReported() async {
    let logs = Logs()
    let box = ContextBox()
    let keeper = Middle(id: "keeper") { context in
      box.context = context
      context.next()
    }
    let store = TestStore(initialState: TestState(), middlewares: [keeper], onLog: logs.onLog)
    await store.dispatchWithResult(.run)
    store.shutdown()
    let ran = Trace()
    box.context?.task { _ in ran.append("ran") }
    await store.tasks.waitUntilIdle()
    #expect(ran.all.isEmpty)
    #expect(logs.events.contains { $0.description.hasPrefix("task of middleware(\"keeper\")") })
  }

  @Test func shutdownEndsChangeStreams() async {
    let store = TestStore(initialState: TestState(), reducers: [counter])
    let changes = store.changes(of: \.value)
    store.shutdown()
    var seen: [Int] = []
    for await value in changes { seen.append(value) }
    #expect(seen == [0])
  }
}

@MainActor
final class StoreBox {
  weak var store: TestStore?
}

@MainActor
final class ContextBox {
  var context: MiddlewareContext<TestState, TestAction>?
}
