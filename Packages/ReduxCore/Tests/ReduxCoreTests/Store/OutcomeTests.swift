import ReduxCore
import ReduxCoreTesting
import Testing

@Suite(.timeLimit(.minutes(1))) @MainActor
struct OutcomeTests {
  /// Refuses to go below zero: the kind of check an app reports to its user.
  struct BelowZero: Error, Equatable {}

  let validator = Middle(id: "validator") { context in
    if context.action == .fail { throw BelowZero() }
    context.next()
  }
  let gatekeeper = Middle(id: "gatekeeper") { context in
    if context.action == .run { return }  // declines without an error
    context.next()
  }

  @Test func anActionThatRanThroughTheReducersIsReduced() async {
    let store = CounterStore(
      initialState: TestState(), middlewares: [validator], reducers: [counter])
    let (state, outcome) = await store.dispatchWithOutcome(.add(3))
    #expect(state.value == 3)
    #expect(outcome.isReduced)
    #expect(outcome.description == "reduced")
  }

  @Test func aMiddlewareThatDoesNotForwardStopsTheAction() async {
    let store = CounterStore(
      initialState: TestState(), middlewares: [validator, gatekeeper], reducers: [counter])
    let (state, outcome) = await store.dispatchWithOutcome(.run)
    #expect(state.log.isEmpty)
    guard case .stopped(let middleware) = outcome else {
      Issue.record("expected stopped, got \(outcome)")
      return
    }
    #expect(middleware == "gatekeeper")
  }

  /// The stopping middleware is found by each one's flag past 32 middlewares too, where the
  /// flags no longer fit the word that is tested at once.
  @Test(arguments: [3, 32, 40])
  func theMiddlewareThatStoppedIsNamedWhateverTheirNumber(count: Int) async {
    let passing = (0..<count - 1).map { index in
      Middle(id: "m\(index)") { context in context.next() }
    }
    let store = CounterStore(
      initialState: TestState(), middlewares: passing + [gatekeeper], reducers: [counter])
    #expect(await store.dispatchWithOutcome(.inc).outcome.isReduced)
    let (state, outcome) = await store.dispatchWithOutcome(.run)
    #expect(outcome.description == "stopped by middleware 'gatekeeper'")
    #expect(state.value == 1)

    let stoppedEarly = CounterStore(
      initialState: TestState(), middlewares: [gatekeeper] + passing, reducers: [counter])
    #expect(
      await stoppedEarly.dispatchWithOutcome(.run).outcome.description
        == "stopped by middleware 'gatekeeper'")
  }

  @Test func aThrownErrorIsReportedWithTheResolverThatHandledIt() async {
    let forward = Resolve(id: "forward") { $0.next() }
    let recover = Resolve(id: "recover") { _ in }
    let store = CounterStore(
      initialState: TestState(), middlewares: [validator], resolvers: [forward, recover],
      reducers: [counter])
    let (state, outcome) = await store.dispatchWithOutcome(.fail)
    #expect(state.log.isEmpty)
    guard case .failed(let error, let origin, let handledBy) = outcome else {
      Issue.record("expected failed, got \(outcome)")
      return
    }
    #expect(error as? BelowZero == BelowZero())
    #expect(origin == .middleware("validator"))
    #expect(handledBy == "recover")
  }

  @Test func anErrorNoResolverHandledIsUnresolved() async {
    let logs = Logs()
    let forward = Resolve(id: "forward") { $0.next() }
    let store = CounterStore(
      initialState: TestState(), middlewares: [validator], resolvers: [forward],
      onLog: logs.onLog)
    let (_, outcome) = await store.dispatchWithOutcome(.fail)
    guard case .failed(_, _, let handledBy) = outcome else {
      Issue.record("expected failed, got \(outcome)")
      return
    }
    #expect(handledBy == nil)
    #expect(logs.events.contains { $0.description.hasPrefix("unresolved error") })
  }

  @Test func anErrorResolvedAfterForwardingFailsTheActionAlthoughTheReducersRan() async {
    let reporter = Middle(id: "reporter") { context in
      context.next()
      context.resolve(TestError(code: 4))
    }
    let store = CounterStore(
      initialState: TestState(), middlewares: [reporter], resolvers: [Resolve(id: "r") { _ in }],
      reducers: [counter])
    let (state, outcome) = await store.dispatchWithOutcome(.inc)
    #expect(state.value == 1)
    guard case .failed(let error, _, "r") = outcome else {
      Issue.record("expected failed and handled by r, got \(outcome)")
      return
    }
    #expect(error as? TestError == TestError(code: 4))
  }

  /// The pipeline's frame is reused from action to action: one action's failure must not
  /// become the next one's outcome.
  @Test func eachActionGetsItsOwnOutcome() async {
    let store = CounterStore(
      initialState: TestState(), middlewares: [validator, gatekeeper],
      resolvers: [Resolve(id: "r") { _ in }], reducers: [counter])
    async let failed = store.dispatchWithOutcome(.fail)
    async let stopped = store.dispatchWithOutcome(.run)
    async let reduced = store.dispatchWithOutcome(.inc)
    let outcomes = await [failed.outcome, stopped.outcome, reduced.outcome]
    #expect(
      outcomes.map(\.description) == [
        "failed in middleware(\"validator\") with BelowZero(), handled by resolver 'r'",
        "stopped by middleware 'gatekeeper'", "reduced",
      ])
  }

  @Test func aRefusedActionReportsWhyAndTheCurrentState() async {
    let store = CounterStore(initialState: TestState(value: 5), reducers: [counter])
    store.shutdown()
    let (state, outcome) = await store.dispatchWithOutcome(.inc)
    #expect(state.value == 5)
    guard case .refused(.shutdown) = outcome else {
      Issue.record("expected refused(shutdown), got \(outcome)")
      return
    }
  }

  @Test func anActionDiscardedAtShutdownIsRefused() async {
    let box = StoreBox()
    let stopper = Middle(id: "stopper") { context in
      if context.action == .run { box.store?.shutdown() }
      context.next()
    }
    let store = CounterStore(initialState: TestState(), middlewares: [stopper], reducers: [counter])
    box.store = store
    store.dispatch(.run)
    let (state, outcome) = await store.dispatchWithOutcome(.inc)
    #expect(state.value == 0)
    #expect(outcome.description == "refused: store shut down")
  }

  @Test func theCompletionRunsOnTheMainActorAndReadsTheState() async {
    let store = CounterStore(initialState: TestState(), reducers: [counter])
    var seen: [Int] = []
    store.dispatch(.add(2)) { state in seen.append(state.value) }
    await store.waitUntilActionsProcessed()
    #expect(seen == [2])
  }
}
