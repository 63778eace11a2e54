import ReduxCore
import ReduxCoreTesting
import Testing

@Suite(.timeLimit(.minutes(1))) @MainActor
struct CompletionTests {
  @Test func dispatchWithResultReturnsTheUpdatedState() async {
    let store = CounterStore(initialState: TestState(), reducers: [counter])
    let state = await store.dispatchWithResult(.inc)
    #expect(state.value == 1)
  }

  @Test func completionReceivesTheStateAfterItsOwnPipeline() async {
    let seen = Trace()
    let store = CounterStore(initialState: TestState(), reducers: [counter])
    store.dispatch(.add(1)) { state in
      MainActor.assumeIsolated { seen.append("first:\(state.value)") }
    }
    store.dispatch(.add(10)) { state in
      MainActor.assumeIsolated { seen.append("second:\(state.value)") }
    }
    await store.waitUntilActionsProcessed()
    #expect(seen.all == ["first:1", "second:11"])
  }

  @Test func completionRunsBeforeActionsDispatchedDuringThePipeline() async {
    let seen = Trace()
    let chain = Middle(id: "chain") { context in
      if context.action == .run { context.dispatch(.inc) }
      context.next()
    }
    let store = CounterStore(initialState: TestState(), middlewares: [chain], reducers: [counter])
    store.dispatch(.run) { state in
      MainActor.assumeIsolated { seen.append("run done at \(state.value)") }
    }
    await store.waitUntilActionsProcessed()
    #expect(seen.all == ["run done at 0"])
    #expect(store.value == 1)
  }

  @Test func blockedActionStillCompletes() async {
    let blocker = Middle(id: "blocker") { _ in }
    let store = CounterStore(initialState: TestState(), middlewares: [blocker], reducers: [counter])
    let state = await store.dispatchWithResult(.inc)
    #expect(state.value == 0)
  }

  @Test func sendDispatchesToTheStore() async {
    let store = CounterStore(initialState: TestState(), reducers: [counter])
    let send = store.send
    send(.add(3))
    await store.waitUntilActionsProcessed()
    #expect(store.value == 3)
  }

  @Test func sendFromACancelledTaskDoesNothing() async {
    let store = CounterStore(initialState: TestState(), reducers: [counter])
    let send = store.send
    let gate = Gate()
    let task = Task { @MainActor in
      try? await gate.wait()
      send(.inc)
    }
    task.cancel()
    await task.value
    await store.waitUntilActionsProcessed()
    #expect(store.value == 0)
  }
}
