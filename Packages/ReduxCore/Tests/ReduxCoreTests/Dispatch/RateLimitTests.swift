import ReduxCore
import ReduxCoreTesting
import Testing

@Suite(.timeLimit(.minutes(1))) @MainActor
struct RateLimitTests {
  @Test func maxDispatchableRefusesWhileTheLimitIsPending() async {
    let store = CounterStore(initialState: TestState(), reducers: [counter])
    let accepted = (0..<3).map { _ in store.dispatch(maxDispatchable: 1, .inc) { _ in } }
    await store.waitUntilActionsProcessed()
    #expect(accepted == [true, false, false])
    #expect(store.value == 1)
  }

  @Test(arguments: [1, 2, 5] as [UInt])
  func limitAdmitsExactlyThatManyPending(limit: UInt) async {
    let store = CounterStore(initialState: TestState(), reducers: [counter])
    for _ in 0..<10 { store.dispatch(maxDispatchable: limit, .inc) }
    await store.waitUntilActionsProcessed()
    #expect(store.value == Int(limit))
  }

  @Test func slotIsFreedOnceTheActionHasRun() async {
    let store = CounterStore(initialState: TestState(), reducers: [counter])
    await store.dispatchWithResult(maxDispatchable: 1, .inc)
    await store.dispatchWithResult(maxDispatchable: 1, .inc)
    #expect(store.value == 2)
  }

  @Test func zeroMeansUnlimited() async {
    let store = CounterStore(initialState: TestState(), reducers: [counter])
    for _ in 0..<50 { store.dispatch(maxDispatchable: 0, .inc) }
    await store.waitUntilActionsProcessed()
    #expect(store.value == 50)
  }

  @Test func limitedAndUnlimitedDispatchesOfOneIDKeepSeparateCounts() async throws {
    // Dispatching from the main actor keeps all of these pending until the test suspends.
    let store = CounterStore(initialState: TestState(), reducers: [counter])
    try store.tryDispatch(maxDispatchable: 1, .inc)
    try store.tryDispatch(.inc)
    try store.tryDispatch(.inc)
    #expect(throws: DispatchError.rateLimited(actionID: "inc", limit: 1)) {
      try store.tryDispatch(maxDispatchable: 1, .inc)
    }
    await store.waitUntilActionsProcessed()
    #expect(store.value == 3)
    // Processing the unlimited ones did not hand their "slots" to the limited budget twice.
    try store.tryDispatch(maxDispatchable: 1, .inc)
    #expect(throws: DispatchError.rateLimited(actionID: "inc", limit: 1)) {
      try store.tryDispatch(maxDispatchable: 1, .inc)
    }
    await store.waitUntilActionsProcessed()
    #expect(store.value == 4)
  }

  @Test func differentIDsHaveSeparateBudgets() async {
    let store = CounterStore(initialState: TestState(), reducers: [counter])
    #expect(store.dispatch(maxDispatchable: 1, .inc) { _ in })
    #expect(store.dispatch(maxDispatchable: 1, .add(2)) { _ in })
    #expect(!store.dispatch(maxDispatchable: 1, .add(3)) { _ in })
    await store.waitUntilActionsProcessed()
    #expect(store.value == 3)
  }

  @Test func refusalIsLoggedWithItsTypedReasonAndTheCompletionNeverRuns() async throws {
    let logs = Logs()
    let trace = Trace()
    let store = CounterStore(initialState: TestState(), reducers: [counter], onLog: logs.onLog)
    store.dispatch(maxDispatchable: 1, .inc) { _ in trace.append("first") }
    let accepted = store.dispatch(maxDispatchable: 1, .inc) { _ in trace.append("second") }
    await store.waitUntilActionsProcessed()
    #expect(!accepted)
    #expect(trace.all == ["first"])
    let event = try #require(logs.events.first)
    guard case .refused(let action, let reason) = event else {
      Issue.record("expected refused, got \(event)")
      return
    }
    #expect(action == .inc)
    #expect(reason == .rateLimited(actionID: "inc", limit: 1))
  }

  @Test func refusedDispatchWithResultReturnsAtOnceWithTheCurrentState() async {
    let store = CounterStore(initialState: TestState(value: 42), reducers: [counter])
    store.dispatch(maxDispatchable: 1, .inc)
    let state = await store.dispatchWithResult(maxDispatchable: 1, .inc)
    #expect(state.value == 42)
    await store.waitUntilActionsProcessed()
    #expect(store.value == 43)
  }

  @Test func tryDispatchWithResultThrowsWhyItWasRefused() async {
    let store = CounterStore(initialState: TestState(), reducers: [counter])
    store.dispatch(maxDispatchable: 1, .inc)
    await #expect(throws: DispatchError.rateLimited(actionID: "inc", limit: 1)) {
      try await store.tryDispatchWithResult(maxDispatchable: 1, .inc)
    }
  }
}
