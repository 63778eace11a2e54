import ReduxCore
import ReduxCoreTesting
import Testing

@Suite(.timeLimit(.minutes(1))) @MainActor
struct PipelineOrderTests {
  @Test func reducersRunInProvidedOrder() async {
    let store = CounterStore(
      initialState: TestState(), reducers: [logging("r1"), logging("r2"), logging("r3")])
    let state = await store.dispatchWithResult(.run)
    #expect(state.log == ["r1", "r2", "r3"])
  }

  @Test func middlewaresRunInOnionOrder() async {
    let trace = Trace()
    let m1 = Middle(id: "m1") { context in
      trace.append("m1.before")
      context.next()
      trace.append("m1.after")
    }
    let m2 = Middle(id: "m2") { context in
      trace.append("m2.before")
      context.next()
      trace.append("m2.after")
    }
    let reducer = Reduce(id: "r") { _ in trace.append("reducer") }
    let store = CounterStore(initialState: TestState(), middlewares: [m1, m2], reducers: [reducer])
    await store.dispatchWithResult(.run)
    #expect(trace.all == ["m1.before", "m2.before", "reducer", "m2.after", "m1.after"])
  }

  @Test func middlewareCanTransformTheAction() async {
    let doubler = Middle(id: "doubler") { context in
      if case .add(let amount) = context.action {
        context.next(.add(amount * 2))
      } else {
        context.next()
      }
    }
    let store = CounterStore(initialState: TestState(), middlewares: [doubler], reducers: [counter])
    let state = await store.dispatchWithResult(.add(5))
    #expect(state.value == 10)
  }

  @Test func middlewareThatNeverCallsNextBlocksTheAction() async {
    let blocker = Middle(id: "blocker") { context in
      if context.action != .inc { context.next() }
    }
    let store = CounterStore(initialState: TestState(), middlewares: [blocker], reducers: [counter])
    store.dispatch(.inc)
    store.dispatch(.add(3))
    let state = await store.dispatchWithResult(.inc)
    #expect(state.value == 3)
    #expect(state.log == ["add"])
  }

  @Test func actionDispatchedFromMiddlewareQueuesBehindTheCurrentOne() async {
    let redispatch = Middle(id: "redispatch") { context in
      if context.action == .run { context.dispatch(0, .inc) }
      context.next()
    }
    let store = CounterStore(
      initialState: TestState(), middlewares: [redispatch], reducers: [counter])
    store.dispatch(.run)
    store.dispatch(.note("queued-before"))
    await store.waitUntilActionsProcessed()
    #expect(store.log == ["run", "queued-before", "inc"])
    #expect(store.value == 1)
  }

  @Test func actionDispatchedFromTaskQueuesBehindPendingOnes() async {
    let gate = Gate()
    let fetcher = Middle(id: "fetcher") { context in
      if context.action == .run {
        context.task { _ in
          try await gate.wait()
          context.dispatch(.note("from-task"))
        }
      }
      context.next()
    }
    let store = CounterStore(initialState: TestState(), middlewares: [fetcher], reducers: [counter])
    store.dispatch(.run)
    await store.waitUntilActionsProcessed()
    store.dispatch(.note("before-gate"))
    gate.open()
    await store.waitUntilIdle()
    #expect(store.log == ["run", "before-gate", "from-task"])
  }

  @Test func dispatchesFromManyThreadsKeepEachSendersOrder() async {
    let store = CounterStore(
      initialState: TestState(), reducers: [counter], queueCapacity: 10_000)
    await withTaskGroup(of: Void.self) { group in
      for sender in 0..<4 {
        group.addTask {
          for index in 0..<250 { store.dispatch(.note("\(sender):\(index)")) }
        }
      }
    }
    await store.waitUntilActionsProcessed()
    let log = store.log
    #expect(log.count == 1000)
    for sender in 0..<4 {
      let mine = log.filter { $0.hasPrefix("\(sender):") }
      #expect(mine == (0..<250).map { "\(sender):\($0)" })
    }
  }

  @Test func burstFromBackgroundRunsEveryActionInOrder() async {
    let store = CounterStore(initialState: TestState(), reducers: [counter], queueCapacity: 5_000)
    await Task.detached {
      for index in 0..<5_000 { store.dispatch(.set(index)) }
    }.value
    await store.waitUntilActionsProcessed()
    #expect(store.value == 4_999)
    #expect(store.log.count == 5_000)
  }
}
