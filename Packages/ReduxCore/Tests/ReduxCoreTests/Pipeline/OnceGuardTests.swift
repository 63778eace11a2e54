import ReduxCore
import ReduxCoreTesting
import Testing

@testable import ReduxCore

@Suite(.timeLimit(.minutes(1))) @MainActor
struct OnceGuardTests {
  @Test func nextIsOnceOnly() async {
    let twice = Middle(id: "twice") { context in
      context.next()
      context.next()
      context.next(.add(100))
    }
    let store = CounterStore(initialState: TestState(), middlewares: [twice], reducers: [counter])
    let state = await store.dispatchWithResult(.inc)
    #expect(state.value == 1)
  }

  /// The first 64 once-only flags are one word, the rest an array: both stay once-only, from
  /// one action to the next.
  @Test(arguments: [1, 31, 32, 33, 70])
  func everyStageIsOnceOnlyInAPipelineOfAnyLength(middlewareCount: Int) async {
    let logs = Logs()
    let middlewares = (0..<middlewareCount).map { index in
      Middle(id: "m\(index)") { context in
        context.next()
        context.next(.add(100))
        context.complete()
        context.complete()
      }
    }
    let reducers = (0..<3).map { index in
      Reduce(id: "r\(index)") { context in
        counter.reduce(context)
        context.complete()
        context.complete()
      }
    }
    let store = CounterStore(
      initialState: TestState(), middlewares: middlewares, reducers: reducers,
      onLog: logs.onLog)
    await store.dispatchWithResult(.inc)
    let state = await store.dispatchWithResult(.inc)
    #expect(state.value == 6)
    #expect(logs.middlewareEntries.count == 2 * middlewareCount)
    #expect(logs.reducerEntries.count == 2 * 3)
  }

  @Test func nextThroughArgsIsOnceOnly() async {
    let twice = Middle(id: "twice") { context in
      let (_, _, _, next, action) = context.args
      next(action)
      next(action)
      context.next()
    }
    let store = CounterStore(initialState: TestState(), middlewares: [twice], reducers: [counter])
    let state = await store.dispatchWithResult(.inc)
    #expect(state.value == 1)
  }

  @Test func resolverNextThroughArgsIsOnceOnly() async {
    let trace = Trace()
    let thrower = Middle(id: "thrower") { _ in throw TestError() }
    let twice = Resolve(id: "twice") { context in
      let (_, _, next, origin, _, _) = context.args
      #expect(origin == .middleware("thrower"))
      next()
      next()
      context.next()
    }
    let last = Resolve(id: "last") { _ in trace.append("last") }
    let store = CounterStore(
      initialState: TestState(), middlewares: [thrower], resolvers: [twice, last])
    await store.dispatchWithResult(.run)
    #expect(trace.all == ["last"])
  }

  @Test func completeEmitsOneLogPerComponent() async {
    let logs = Logs()
    let m1 = Middle(id: "m1") { context in
      context.next()
      context.complete()
      context.complete()
    }
    let m2 = Middle(id: "m2") { context in context.next() }
    let r1 = Reduce(id: "r1") { context in if context.action == .run { context.complete() } }
    let r2 = Reduce(id: "r2") { context in
      if context.action == .inc {
        context.complete()
        context.complete(false)
      }
    }
    let store = CounterStore(
      initialState: TestState(), middlewares: [m1, m2], reducers: [r1, r2], onLog: logs.onLog)
    await store.dispatchWithResult(.inc)
    #expect(logs.middlewareEntries.map(\.id) == ["m1"])
    #expect(logs.reducerEntries.map(\.id) == ["r2"])
    #expect(logs.reducerEntries.map(\.succeeded) == [true])
  }

  @Test func completeEmitsOneLogPerResolver() async {
    let logs = Logs()
    let thrower = Middle(id: "thrower") { _ in throw TestError() }
    let res1 = Resolve(id: "res1") { context in
      context.complete()
      context.complete()
      context.next()
    }
    let res2 = Resolve(id: "res2") { _ in }
    let store = CounterStore(
      initialState: TestState(), middlewares: [thrower], resolvers: [res1, res2], onLog: logs.onLog)
    await store.dispatchWithResult(.run)
    #expect(logs.resolverEntries.map(\.id) == ["res1"])
  }

  @Test func withoutOnLogNoClockIsRead() async {
    let trace = Trace()
    let probe = Middle(id: "probe") { context in
      trace.append("middleware start: \(context.start == .zero ? "none" : "read")")
      context.next()
      context.complete()
    }
    let reducer = Reduce(id: "r") { context in
      trace.append("reducer start: \(context.start == .zero ? "none" : "read")")
    }
    let quiet = CounterStore(initialState: TestState(), middlewares: [probe], reducers: [reducer])
    await quiet.dispatchWithResult(.run)
    let logged = CounterStore(
      initialState: TestState(), middlewares: [probe], reducers: [reducer], onLog: { _ in })
    await logged.dispatchWithResult(.run)
    #expect(
      trace.all == [
        "middleware start: none", "reducer start: none",
        "middleware start: read", "reducer start: read",
      ])
  }

  @Test func deferredNextRunsOnceEvenAfterLaterActionsReuseTheFrame() async {
    let gate = Gate()
    let deferring = Middle(id: "deferring") { context in
      guard context.action == .run else { return context.next() }
      context.task { _ in
        try await gate.wait()
        context.next()
        context.next()
      }
    }
    let store = CounterStore(
      initialState: TestState(), middlewares: [deferring], reducers: [counter])
    store.dispatch(.run)
    store.dispatch(.inc)
    store.dispatch(.inc)
    await store.waitUntilActionsProcessed()
    #expect(store.log == ["inc", "inc"])
    gate.open()
    await store.waitUntilIdle()
    #expect(store.log == ["inc", "inc", "run"])
    await store.dispatchWithResult(.inc)
    #expect(store.log == ["inc", "inc", "run", "inc"])
  }

  @Test func completionReportsTheStateBeforeADeferredReduce() async {
    let gate = Gate()
    let deferring = Middle(id: "deferring") { context in
      context.task { _ in
        try await gate.wait()
        context.next()
      }
    }
    let store = CounterStore(
      initialState: TestState(), middlewares: [deferring], reducers: [counter])
    let valueAtCompletion = await store.dispatchWithResult(.inc).value
    #expect(valueAtCompletion == 0)
    gate.open()
    await store.waitUntilIdle()
    #expect(store.value == 1)
  }

  @Test func argsDestructureEveryContext() async {
    let trace = Trace()
    let middleware = Middle(id: "m") { context in
      let (dispatch, _, _, next, action) = context.args
      trace.append("m:\(action.id)")
      if action == .run { dispatch(0, .note("dispatched")) }
      next(action)
    }
    let reducer = Reduce(id: "r") { context in
      let (state, action) = context.args
      state.log.append("r:\(action.id)")
    }
    let store = CounterStore(
      initialState: TestState(), middlewares: [middleware], reducers: [reducer])
    store.dispatch(.run)
    await store.waitUntilActionsProcessed()
    #expect(trace.all == ["m:run", "m:note"])
    #expect(store.log == ["r:run", "r:note"])
  }
}
