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
    var store: CounterStore?
    weak var weakState: TestState?
    do {
      let state = TestState()
      weakState = state
      store = CounterStore(initialState: state, middlewares: [longRunning], reducers: [counter])
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
    let store = CounterStore(initialState: TestState(), middlewares: [stopper], reducers: [counter])
    box.store = store
    store.dispatch(.run)
    await #expect(throws: DispatchError.shutdown) {
      try await store.tryDispatchWithResult(.inc)
    }
    #expect(store.value == 0)
  }

  @Test func shutdownLogsEveryDiscardedAction() async {
    let logs = Logs()
    let store = CounterStore(initialState: TestState(), reducers: [counter], onLog: logs.onLog)
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
    let store = CounterStore(
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
        // NB: shutdown released the stages: what the stopper forwards afterwards reaches no
        // reducer, and is reported.
        "discarded 'run': store shut down",
      ])
    #expect(store.value == 0)
  }

  @Test func dispatchAfterShutdownIsRefusedAndReported() async {
    let logs = Logs()
    let store = CounterStore(
      initialState: TestState(value: 5), reducers: [counter], onLog: logs.onLog)
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
    let store = CounterStore(initialState: TestState(), middlewares: [keeper], onLog: logs.onLog)
    await store.dispatchWithResult(.run)
    store.shutdown()
    let ran = Trace()
    box.context?.task { _ in ran.append("ran") }
    await store.tasks.waitUntilIdle()
    #expect(ran.all.isEmpty)
    #expect(logs.events.contains { $0.description.hasPrefix("task of middleware(\"keeper\")") })
  }

  @Test func aMiddlewareThatKeepsItsContextDoesNotKeepTheStoreAlive() async {
    weak var weakBox: ContextBox?
    weak var weakState: TestState?
    weak var weakTasks: TaskManager?
    do {
      let box = ContextBox()
      weakBox = box
      let keeper = Middle(id: "keeper") { context in
        box.context = context
        context.next()
      }
      let state = TestState()
      weakState = state
      let store = CounterStore(initialState: state, middlewares: [keeper], reducers: [counter])
      weakTasks = store.tasks
      await store.dispatchWithResult(.inc)
      #expect(box.context?.action == .inc)
    }
    // NB: the box holds a context, the context the store's worker, the worker the middleware,
    // the middleware the box: only the store's shutdown (its deinit) can break that cycle.
    #expect(weakBox == nil)
    #expect(weakState == nil)
    #expect(weakTasks == nil)
  }

  @Test func reducersAndResolversThatKeepTheirContextsAreReleasedByShutdown() async {
    weak var weakReducerBox: ReducerContextBox?
    weak var weakResolverBox: ResolverContextBox?
    weak var weakTasks: TaskManager?
    do {
      let reducerBox = ReducerContextBox()
      let resolverBox = ResolverContextBox()
      weakReducerBox = reducerBox
      weakResolverBox = resolverBox
      let failing = Middle(id: "failing") { context in
        if context.action == .fail { throw TestError() }
        context.next()
      }
      let keeper = Reduce(id: "keeper") { reducerBox.context = $0 }
      let resolver = Resolve(id: "resolver") { resolverBox.context = $0 }
      let store = CounterStore(
        initialState: TestState(), middlewares: [failing], resolvers: [resolver],
        reducers: [keeper])
      weakTasks = store.tasks
      await store.dispatchWithResult(.inc)
      await store.dispatchWithResult(.fail)
      #expect(reducerBox.context?.action == .inc)
      #expect(resolverBox.context?.action == .fail)
      store.shutdown()
    }
    #expect(weakReducerBox == nil)
    #expect(weakResolverBox == nil)
    #expect(weakTasks == nil)
  }

  @Test func aContextKeptPastShutdownForwardsNothingAndReportsTheAction() async {
    let logs = Logs()
    let box = ContextBox()
    let keeper = Middle(id: "keeper") { context in
      if context.action == .run { box.context = context } else { context.next() }
    }
    let store = CounterStore(
      initialState: TestState(), middlewares: [keeper], reducers: [counter], onLog: logs.onLog)
    await store.dispatchWithResult(.run)
    store.shutdown()
    box.context?.next(.inc)
    #expect(store.value == 0)
    #expect(logs.events.last?.description == "discarded 'inc': store shut down")
  }

  @Test func shutdownInsideAReducerSkipsTheReducersAfterIt() async {
    let box = StoreBox()
    let stopper = Reduce(id: "stopper") { context in
      if context.action == .run { box.store?.shutdown() }
    }
    let store = CounterStore(
      initialState: TestState(), reducers: [logging("first"), stopper, logging("last")])
    box.store = store
    await store.dispatchWithResult(.inc)
    await store.dispatchWithResult(.run)
    #expect(store.state.log == ["first", "last", "first"])
  }

  @Test func shutdownEndsChangeStreams() async {
    let store = CounterStore(initialState: TestState(), reducers: [counter])
    let changes = store.changes(of: \.value)
    store.shutdown()
    var seen: [Int] = []
    for await value in changes { seen.append(value) }
    #expect(seen == [0])
  }
}

@MainActor
final class StoreBox {
  weak var store: CounterStore?
}

@MainActor
final class ContextBox {
  var context: MiddlewareContext<TestState, TestAction>?
}

@MainActor
final class ReducerContextBox {
  var context: ReducerContext<TestState, TestAction>?
}

@MainActor
final class ResolverContextBox {
  var context: ResolverContext<TestState, TestAction>?
}
