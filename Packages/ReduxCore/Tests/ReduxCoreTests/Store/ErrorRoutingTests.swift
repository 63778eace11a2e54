import ReduxCore
import ReduxCoreTesting
import Testing

@Suite(.timeLimit(.minutes(1))) @MainActor
struct ErrorRoutingTests {
  let thrower = Middle(id: "throwing-middleware") { context in
    if context.action == .fail { throw TestError() }
    context.next()
  }

  @Test func thrownErrorReachesResolversWithTheMiddlewareAsOrigin() async {
    let trace = Trace()
    let resolver = Resolve(id: "resolver") { context in
      trace.append("\(context.origin)|\(context.action.id)|\(context.error is TestError)")
    }
    let store = CounterStore(
      initialState: TestState(), middlewares: [thrower], resolvers: [resolver], reducers: [counter])
    let state = await store.dispatchWithResult(.fail)
    #expect(trace.all == ["middleware(\"throwing-middleware\")|fail|true"])
    #expect(state.log.isEmpty)
  }

  @Test func resolveRunsResolversAtOnceAndTheMiddlewareContinues() async {
    let trace = Trace()
    let reporter = Middle(id: "reporter") { context in
      context.resolve(TestError(code: 7))
      trace.append("after-resolve")
      context.next()
    }
    let resolver = Resolve(id: "resolver") { context in
      trace.append("resolver:\((context.error as? TestError)?.code ?? 0)")
    }
    let reducer = Reduce(id: "r") { _ in trace.append("reducer") }
    let store = CounterStore(
      initialState: TestState(), middlewares: [reporter], resolvers: [resolver], reducers: [reducer]
    )
    await store.dispatchWithResult(.run)
    #expect(trace.all == ["resolver:7", "after-resolve", "reducer"])
  }

  @Test func resolversRunFirstRegisteredFirstUntilOneStopsForwarding() async {
    let trace = Trace()
    let resolvers = ["rA", "rB", "rC"].map { id in
      Resolve(id: id) { context in
        trace.append(id)
        if id == "rA" { context.next() }
      }
    }
    let store = CounterStore(
      initialState: TestState(), middlewares: [thrower], resolvers: resolvers)
    await store.dispatchWithResult(.fail)
    #expect(trace.all == ["rA", "rB"])
  }

  @Test func resolverCanForwardAnotherErrorAndAction() async {
    let trace = Trace()
    let translate = Resolve(id: "translate") { context in context.next(TestError(code: 2), .inc) }
    let last = Resolve(id: "last") { context in
      trace.append("\((context.error as? TestError)?.code ?? 0):\(context.action.id)")
    }
    let store = CounterStore(
      initialState: TestState(), middlewares: [thrower], resolvers: [translate, last])
    await store.dispatchWithResult(.fail)
    #expect(trace.all == ["2:inc"])
  }

  @Test func errorWithNoResolverIsReportedThroughOnLog() async throws {
    let logs = Logs()
    let store = CounterStore(initialState: TestState(), middlewares: [thrower], onLog: logs.onLog)
    await store.dispatchWithResult(.fail)
    let event = try #require(logs.events.first)
    guard case .unresolvedError(let error, let action, let origin) = event else {
      Issue.record("expected unresolvedError, got \(event)")
      return
    }
    #expect(error is TestError)
    #expect(action == .fail)
    #expect(origin == .middleware("throwing-middleware"))
  }

  @Test func errorForwardedPastTheLastResolverIsReported() async {
    let logs = Logs()
    let forward = Resolve(id: "forward") { $0.next() }
    let store = CounterStore(
      initialState: TestState(), middlewares: [thrower], resolvers: [forward], onLog: logs.onLog)
    await store.dispatchWithResult(.fail)
    #expect(logs.events.count == 1)
    #expect(logs.events.first?.description.hasPrefix("unresolved error") == true)
  }

  @Test func errorHandledByAResolverIsNotReportedAsUnresolved() async {
    let logs = Logs()
    let handle = Resolve(id: "handle") { _ in }
    let store = CounterStore(
      initialState: TestState(), middlewares: [thrower], resolvers: [handle], onLog: logs.onLog)
    await store.dispatchWithResult(.fail)
    #expect(logs.events.isEmpty)
  }

  @Test func throwingMiddlewareEmitsAFailureLogAutomatically() async throws {
    let logs = Logs()
    let store = CounterStore(
      initialState: TestState(), middlewares: [thrower], resolvers: [Resolve(id: "r") { _ in }],
      onLog: logs.onLog)
    await store.dispatchWithResult(.fail)
    let entry = try #require(logs.middlewareEntries.first)
    #expect(entry.id == "throwing-middleware")
    #expect(throws: TestError.self) { try entry.result.get() }
  }

  @Test func innerThrowIsHandledAtItsStepAndTheOuterMiddlewareContinues() async {
    let trace = Trace()
    let outer = Middle(id: "outer") { context in
      context.next()
      trace.append("outer.after")
    }
    let store = CounterStore(
      initialState: TestState(), middlewares: [outer, thrower],
      resolvers: [Resolve(id: "r") { context in trace.append("resolved:\(context.origin)") }])
    await store.dispatchWithResult(.fail)
    #expect(trace.all == ["resolved:middleware(\"throwing-middleware\")", "outer.after"])
  }

  @Test func errorThrownInATaskReachesResolversWithTheMiddlewareOrigin() async {
    let trace = Trace()
    let worker = Middle(id: "async-worker") { context in
      context.task { _ in throw TestError(code: 3) }
      context.next()
    }
    let resolver = Resolve(id: "r") { context in
      trace.append("\(context.origin):\((context.error as? TestError)?.code ?? 0)")
    }
    let store = CounterStore(
      initialState: TestState(), middlewares: [worker], resolvers: [resolver], reducers: [counter])
    await store.dispatchWithResult(.run)
    await store.waitUntilIdle()
    #expect(trace.all == ["middleware(\"async-worker\"):3"])
    #expect(store.log == ["run"])
  }

  @Test func resolverCanDispatchARecoveryAction() async {
    let recover = Resolve(id: "recover") { context in context.dispatch(0, .inc) }
    let store = CounterStore(
      initialState: TestState(), middlewares: [thrower], resolvers: [recover], reducers: [counter])
    store.dispatch(.fail)
    await store.waitUntilActionsProcessed()
    #expect(store.value == 1)
  }
}
