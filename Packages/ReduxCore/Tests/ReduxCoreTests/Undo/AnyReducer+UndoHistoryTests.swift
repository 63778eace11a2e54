import Observation
import ReduxCore
import ReduxCoreTesting
import Testing

/// A list with an undo history, a selection that undo leaves alone, and a log of what
/// `restoreUndoSnapshot` was given.
@MainActor
@Observable
final class UndoListState: UndoableState {
  var items: [String] = []
  var selection: String?
  var restored: [[String]] = []
  var undoHistory: UndoHistory<[String]>

  init(capacity: Int = 10) {
    undoHistory = UndoHistory(capacity: capacity)
  }

  var undoSnapshot: [String] { items }

  func restoreUndoSnapshot(_ snapshot: [String]) {
    restored.append(snapshot)
    items = snapshot
  }
}

enum UndoListAction: ReduxAction {
  case add(String)
  case remove(String)
  case rename(Int, String)
  case select(String)
  case undo
  case redo

  var undoIntent: UndoIntent {
    switch self {
    case .add, .remove: .record
    case .rename(let index, _): .recordCoalescing("rename \(index)")
    case .select: .ignore
    case .undo: .undo
    case .redo: .redo
    }
  }
}

let undoListReducer = AnyReducer<UndoListState, UndoListAction>(id: "list") { context in
  let (state, action) = context.args
  switch action {
  case .add(let item): state.items.append(item)
  case .remove(let item): state.items.removeAll { $0 == item }
  case .rename(let index, let name): state.items[index] = name
  case .select(let item): state.selection = item
  case .undo, .redo: break
  }
}

typealias UndoListStore = Store<UndoListState, UndoListAction>

@Suite(.timeLimit(.minutes(1))) @MainActor
struct AnyReducerUndoHistoryTests {
  func makeStore(
    capacity: Int = 10, onLog: (@Sendable (UndoListStore.Log) -> Void)? = nil
  ) -> UndoListStore {
    UndoListStore(
      initialState: UndoListState(capacity: capacity),
      reducers: [.undoHistory { $0.undoIntent }, undoListReducer],
      onLog: onLog)
  }

  @Test func undoAndRedoStepBackAndForthThroughTheRecordedActions() async {
    let store = makeStore()
    await store.dispatchWithResult(.add("a"))
    await store.dispatchWithResult(.add("b"))
    await store.dispatchWithResult(.add("c"))
    #expect(await store.dispatchWithResult(.undo).items == ["a", "b"])
    #expect(await store.dispatchWithResult(.undo).items == ["a"])
    #expect(await store.dispatchWithResult(.redo).items == ["a", "b"])
    let state = await store.dispatchWithResult(.undo)
    #expect(state.items == ["a"])
    #expect(state.undoHistory.lastOutcome == .undone)
    #expect((state.undoHistory.undoCount, state.undoHistory.redoCount) == (1, 2))
    #expect(await store.dispatchWithResult(.redo).items == ["a", "b"])
    #expect(await store.dispatchWithResult(.redo).items == ["a", "b", "c"])
    #expect(store.undoHistory.lastOutcome == .redone)
    #expect(!store.undoHistory.canRedo)
  }

  @Test func restoringGoesThroughRestoreUndoSnapshot() async {
    let store = makeStore()
    await store.dispatchWithResult(.add("a"))
    await store.dispatchWithResult(.remove("a"))
    await store.dispatchWithResult(.undo)
    await store.dispatchWithResult(.redo)
    #expect(store.restored == [["a"], []])
  }

  @Test func aNewActionAfterAnUndoClearsTheRedoSide() async {
    let store = makeStore()
    await store.dispatchWithResult(.add("a"))
    await store.dispatchWithResult(.add("b"))
    await store.dispatchWithResult(.undo)
    #expect(store.undoHistory.canRedo)
    await store.dispatchWithResult(.add("c"))
    #expect(!store.undoHistory.canRedo)
    let state = await store.dispatchWithResult(.redo)
    #expect(state.items == ["a", "c"])
    #expect(state.undoHistory.lastOutcome == .nothingToRedo)
    #expect(await store.dispatchWithResult(.undo).items == ["a"])
    #expect(await store.dispatchWithResult(.undo).items == [])
  }

  @Test func theHistoryKeepsAtMostItsCapacity() async {
    let store = makeStore(capacity: 2)
    for item in ["a", "b", "c", "d"] { await store.dispatchWithResult(.add(item)) }
    #expect(store.undoHistory.undoCount == 2)
    #expect(await store.dispatchWithResult(.undo).items == ["a", "b", "c"])
    #expect(await store.dispatchWithResult(.undo).items == ["a", "b"])
    let state = await store.dispatchWithResult(.undo)
    #expect(state.items == ["a", "b"])
    #expect(state.undoHistory.lastOutcome == .nothingToUndo)
  }

  @Test func undoWithAnEmptyHistoryLeavesTheStateAndSaysNothingToUndo() async {
    let store = makeStore()
    let (state, outcome) = await store.dispatchWithOutcome(.undo)
    #expect(outcome.isReduced)
    #expect(state.items.isEmpty)
    #expect(state.restored.isEmpty)
    #expect(state.undoHistory.lastOutcome == .nothingToUndo)
    #expect("\(state.undoHistory.lastOutcome!)" == "nothing to undo")
  }

  @Test func ignoredActionsNeitherRecordNorAreUndone() async {
    let store = makeStore()
    await store.dispatchWithResult(.add("a"))
    await store.dispatchWithResult(.select("a"))
    #expect(store.undoHistory.undoCount == 1)
    #expect(store.undoHistory.lastOutcome == .recorded)
    let state = await store.dispatchWithResult(.undo)
    #expect(state.items.isEmpty)
    #expect(state.selection == "a")
  }

  @Test func coalescedActionsAreUndoneTogether() async {
    let store = makeStore()
    await store.dispatchWithResult(.add("a"))
    await store.dispatchWithResult(.rename(0, "b"))
    await store.dispatchWithResult(.rename(0, "bo"))
    await store.dispatchWithResult(.rename(0, "box"))
    #expect(store.undoHistory.lastOutcome == .coalesced)
    #expect(store.undoHistory.undoCount == 2)
    #expect(await store.dispatchWithResult(.undo).items == ["a"])
    #expect(await store.dispatchWithResult(.redo).items == ["box"])
  }

  @Test func anOutOfRangeCapacityIsReportedOnceThroughOnLog() async {
    let logs = LogRecorder<UndoListState, UndoListAction>()
    let store = makeStore(capacity: 0, onLog: logs.onLog)
    await store.dispatchWithResult(.select("x"))
    #expect(logs.events.isEmpty)  // an ignored action does not read the history
    await store.dispatchWithResult(.add("a"))
    await store.dispatchWithResult(.add("b"))
    await store.dispatchWithResult(.undo)
    let adjustments = logs.events.compactMap { event -> String? in
      guard case .adjusted(let sentence) = event else { return nil }
      return sentence
    }
    #expect(adjustments == ["UndoHistory: capacity 0 keeps nothing; using 1"])
    #expect(store.items == ["a"])
  }

  @Test func theHistoryReducerReportsItsTimingLikeTheAppsReducers() async {
    let logs = LogRecorder<UndoListState, UndoListAction>()
    let store = makeStore(onLog: logs.onLog)
    await store.dispatchWithResult(.select("x"))
    await store.dispatchWithResult(.add("a"))
    await store.dispatchWithResult(.undo)
    let timed = logs.reducerEntries.filter { $0.id == "undoHistory" }.map { "\($0.action)" }
    #expect(timed == [#"select("x")"#, #"add("a")"#, "undo"])
    #expect(logs.reducerEntries.allSatisfy { $0.succeeded })
  }
}
