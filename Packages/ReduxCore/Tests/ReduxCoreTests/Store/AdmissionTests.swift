import ReduxCore
import ReduxCoreTesting
import Testing

/// Dispatches under admission policies, end to end through a store on a `ManualClock`.
@Suite(.timeLimit(.minutes(1))) @MainActor
struct AdmissionTests {
  let clock = ManualClock()
  let logs = Logs()

  func makeStore(policies: [String: AdmissionPolicy] = [:]) -> CounterStore {
    CounterStore(
      initialState: TestState(), reducers: [counter], admissionPolicies: policies, clock: clock,
      onLog: logs.onLog)
  }

  /// The refusals `onLog` received, as (action, reason).
  var refusals: [(TestAction, DispatchError)] {
    logs.events.compactMap { event in
      guard case .refused(let action, let reason) = event else { return nil }
      return (action, reason)
    }
  }

  @Test func latestReplacesAQueuedDispatchAndReportsIt() async {
    let store = makeStore()
    store.dispatch(.note("a"), policy: .latest)
    store.dispatch(.inc)
    let (state, outcome) = await store.dispatchWithOutcome(.note("ab"), policy: .latest)
    #expect({ if case .reduced = outcome { true } else { false } }())
    #expect(state.log == ["inc", "ab"])  // "ab" runs in its own place in the queue
    #expect(refusals.map(\.0) == [.note("a")])
    #expect(refusals.map(\.1) == [.superseded(actionID: "note")])
    #expect(store.refusedDispatchCount == 1)
  }

  @Test func latestLetsADispatchThatRanStand() async {
    let store = makeStore()
    await store.dispatchWithResult(.note("a"))
    let (state, _) = await store.dispatchWithOutcome(.note("b"), policy: .latest)
    #expect(state.log == ["a", "b"])
    #expect(refusals.isEmpty)
  }

  @Test func debounceRunsTheLastAfterQuietAndTellsTheOthersTheyWereSuperseded() async {
    let store = makeStore()
    let policy = AdmissionPolicy.debounce(.milliseconds(100))
    let first = Task { await store.dispatchWithOutcome(.note("s"), policy: policy) }
    await clock.waitForSleepers(1)
    await clock.advance(by: .milliseconds(60))
    let second = Task { try await store.tryDispatchWithResult(.note("sw"), policy: policy) }
    let outcome = await first.value.outcome
    #expect({ if case .refused(.superseded("note")) = outcome { true } else { false } }())
    await clock.advance(by: .milliseconds(60))  // 120: 100 after "s", 60 after "sw"
    #expect(store.log.isEmpty)
    await clock.waitForSleepers(1)
    await clock.advance(by: .milliseconds(40))  // 160: 100 after "sw"
    let state = try? await second.value
    #expect(state?.log == ["sw"])
  }

  @Test func debounceMaxWaitLetsASteadyStreamThrough() async {
    let store = makeStore()
    let policy = AdmissionPolicy.debounce(.milliseconds(100), maxWait: .milliseconds(150))
    for (index, text) in ["s", "sw", "swi"].enumerated() {
      if index > 0 {
        await clock.waitForSleepers(1)
        await clock.advance(by: .milliseconds(60))
      }
      store.dispatch(.note(text), policy: policy)
    }
    await clock.waitForSleepers(1)
    await clock.advance(by: .milliseconds(30))  // 150: maxWait after "s"
    await waitUntil { store.log == ["swi"] }
    #expect(refusals.map(\.0) == [.note("s"), .note("sw")])
  }

  @Test func throttleRunsTheFirstAtOnceAndTheLastAtTheWindowsEnd() async {
    let store = makeStore()
    let policy = AdmissionPolicy.throttle(.milliseconds(100))
    await store.dispatchWithResult(.note("a"), policy: policy)
    #expect(store.log == ["a"])
    store.dispatch(.note("b"), policy: policy)
    await clock.waitForSleepers(1)
    store.dispatch(.note("c"), policy: policy)
    await clock.advance(by: .milliseconds(100))
    await waitUntil { store.log == ["a", "c"] }
    #expect(refusals.map(\.1) == [.superseded(actionID: "note")])
  }

  @Test func throttleWithoutTrailingRefusesWithinTheWindow() async {
    let store = makeStore()
    let policy = AdmissionPolicy.throttle(.milliseconds(100), trailing: false)
    try? store.tryDispatch(.note("a"), policy: policy)
    #expect(throws: DispatchError.throttled(actionID: "note", interval: .milliseconds(100))) {
      try store.tryDispatch(.note("b"), policy: policy)
    }
    await clock.advance(by: .milliseconds(100))
    #expect(store.dispatch(.note("c"), policy: policy))
    await store.waitUntilActionsProcessed()
    #expect(store.log == ["a", "c"])
    #expect(store.refusedDispatchCount == 1)
  }

  @Test func aRegisteredPolicyGovernsPlainDispatchesOfItsID() async {
    let store = makeStore(policies: ["note": .latest])
    store.dispatch(.note("a"))
    store.dispatch(.inc)  // another id: no policy
    store.dispatch(.inc)
    let state = await store.dispatchWithResult(.note("b"))
    #expect(state.log == ["inc", "inc", "b"])
    #expect(refusals.map(\.0) == [.note("a")])
  }

  @Test func limitIsMaxDispatchable() async {
    let store = makeStore()
    #expect(store.dispatch(.note("a"), policy: .limit(1)))
    #expect(!store.dispatch(.note("b"), policy: .limit(1)))
    await store.waitUntilActionsProcessed()
    #expect(store.dispatch(.note("c"), policy: .limit(1)))
    await store.waitUntilActionsProcessed()
    #expect(store.log == ["a", "c"])
    #expect(refusals.map(\.1) == [.rateLimited(actionID: "note", limit: 1)])
  }

  @Test func aHeldDispatchIsSettledWhenTheStoreShutsDown() async {
    let store = makeStore()
    let held = Task {
      try await store.tryDispatchWithResult(.note("a"), policy: .debounce(.seconds(1)))
    }
    await clock.waitForSleepers(1)
    store.shutdown()
    await #expect(throws: DispatchError.shutdown) { try await held.value }
    #expect(logs.events.contains { if case .shutdown(discarded: 1) = $0 { true } else { false } })
    #expect(!store.dispatch(.note("b"), policy: .debounce(.seconds(1))))
  }

  @Test func aMiddlewareTaskUnderDebounceRunsOnTheStoresClockAndReportsTheOnesSuperseded() async {
    let search = Middle(id: "search") { context in
      if case .note(let text) = context.action {
        context.task(id: "search", policy: .debounce(.milliseconds(100))) { _ in
          context.dispatch(.add(text.count))
        }
      }
      context.next()
    }
    let store = CounterStore(
      initialState: TestState(), middlewares: [search], reducers: [counter], clock: clock,
      onLog: logs.onLog)
    await store.dispatchWithResult(.note("a"))
    await clock.advance(by: .milliseconds(50))
    await store.dispatchWithResult(.note("ab"))
    await clock.advance(by: .milliseconds(100))
    await store.waitUntilIdle()
    #expect(store.value == 2)
    let refused = logs.events.compactMap { event -> (TestAction, TaskRefusal)? in
      guard case .taskRefused(let action, .middleware("search"), let reason) = event else {
        return nil
      }
      return (action, reason)
    }
    #expect(refused.map(\.0) == [.note("a")])
    #expect(refused.map(\.1) == [.superseded])
  }
}
