import ReduxCore
import ReduxCoreTesting
import Synchronization
import Testing

/// What a store tells its inspector (DevTools' recorder), and pausing it for time travel.
@Suite(.timeLimit(.minutes(1))) @MainActor
struct InspectorTests {
  /// Keeps what a store reports, in order.
  final class Seen: StoreInspector, Sendable {
    typealias State = TestState
    typealias Action = TestAction

    private let entries = Mutex<[String]>([])
    var all: [String] { entries.withLock { $0 } }

    func storeDidRun(
      _ action: TestAction, source: ActionSource, outcome: DispatchOutcome,
      state: TestState.ReadOnly, duration: Duration, finished: ContinuousClock.Instant
    ) {
      entries.withLock { $0.append("\(action.id) by \(source): \(outcome) → \(state.value)") }
    }

    func storeDidRefuse(_ action: TestAction, reason: DispatchError) {
      entries.withLock { $0.append("\(action.id) refused: \(reason)") }
    }
  }

  @Test func theInspectorSeesWhoDispatchedEachActionWhatHappenedAndTheStateAfter() async {
    let seen = Seen()
    let relay = Middle(id: "relay") { context in
      if case .run = context.action { context.dispatch(.add(10)) }
      if case .fail = context.action { return context.resolve(TestError()) }
      context.next()
    }
    let gate = Middle(id: "gate") { context in
      if case .set = context.action { return }  // stops it
      context.next()
    }
    let recover = Resolve(id: "recover") { context in
      context.dispatch(.inc)
      context.next()
    }
    let store = CounterStore(
      initialState: TestState(), middlewares: [relay, gate], resolvers: [recover],
      reducers: [counter], inspector: seen)
    await store.dispatchWithResult(.inc)
    await store.dispatchWithResult(.run)
    await store.dispatchWithResult(.set(5))
    await store.dispatchWithResult(.fail)
    await store.waitUntilIdle()
    #expect(
      seen.all == [
        "inc by caller: reduced → 1",
        "run by caller: reduced → 1",
        "add by middleware relay: reduced → 11",
        "set by caller: stopped by middleware 'gate' → 11",
        #"fail by caller: failed in middleware("relay") with TestError(code: 1), unresolved → 11"#,
        "inc by resolver recover: reduced → 12",
      ])
  }

  @Test func aRefusedDispatchReachesTheInspector() async {
    let seen = Seen()
    let store = CounterStore(
      initialState: TestState(), reducers: [counter], queueCapacity: 1, inspector: seen)
    store.pause()
    #expect(store.dispatch(.inc))
    #expect(!store.dispatch(.add(2)))
    #expect(seen.all == ["add refused: \(DispatchError.queueFull(capacity: 1))"])
    store.resume()
    await store.waitUntilIdle()
    #expect(store.value == 1)
  }

  @Test func aPausedStoreHoldsItsActionsInOrderUntilResumed() async {
    let store = CounterStore(initialState: TestState(), reducers: [counter])
    await store.dispatchWithResult(.inc)
    store.pause()
    #expect(store.isPaused)
    store.dispatch(.add(2))
    let waiting = Task { await store.dispatchWithResult(.note("last")).log }
    // NB: a main-actor job queued after the drain jobs those dispatches scheduled runs after
    // them: they have run, and held the actions.
    await Task { @MainActor in }.value
    await Task { @MainActor in }.value
    #expect(store.value == 1)
    store.resume()
    #expect(await waiting.value == ["inc", "add", "last"])
    #expect(store.value == 3)
  }

  @Test func aPausedStoreRestoresAnEarlierStateThroughItsUndoSnapshot() async {
    let store = UndoListStore(initialState: UndoListState(), reducers: [undoListReducer])
    await store.dispatchWithResult(.add("a"))
    let earlier = store.items
    await store.dispatchWithResult(.add("b"))
    // NB: subscribed (its first value read) before the restore: a stream that starts observing
    // on its first read would otherwise begin at the restored value, and wait for another.
    var seen = store.changes(of: \.items).makeAsyncIterator()
    #expect(await seen.next() == ["a", "b"])  // the value when subscribed…
    store.pause()
    store.restoreWhilePaused(earlier)
    #expect(store.items == ["a"])
    #expect(await seen.next() == ["a"])  // …then the restored one, for every observer
    store.resume()
    #expect(await store.dispatchWithResult(.add("c")).items == ["a", "c"])
  }

  @Test func aRestoreFromAnotherTimelineBringsThatTimelinesUndoHistory() async {
    let reducers: [AnyReducer<UndoListState, UndoListAction>] = [
      .undoHistory { $0.undoIntent }, undoListReducer,
    ]
    let store = UndoListStore(initialState: UndoListState(), reducers: reducers)
    for item in ["a", "b", "c"] { await store.dispatchWithResult(.add(item)) }
    // The same timeline without "b", recomputed in a store of its own.
    let other = UndoListStore(initialState: UndoListState(), reducers: reducers)
    for item in ["a", "c"] { await other.dispatchWithResult(.add(item)) }
    store.pause()
    store.restoreWhilePaused(other.items)
    #expect(store.undoHistory.undoCount == 3)  // kept unless told
    store.restoreWhilePaused(other.items, undoHistory: other.undoHistory)
    #expect(store.undoHistory.undoCount == 2)
    store.resume()
    #expect(await store.dispatchWithResult(.undo).items == ["a"])  // "b" never comes back
    #expect(await store.dispatchWithResult(.undo).items == [])
  }
}
