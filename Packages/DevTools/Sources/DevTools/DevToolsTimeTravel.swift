import Observation
public import ReduxCore

/// Time travel on a live store: show the state after any recorded action (the store paused
/// meanwhile), step back and forth, skip an action and recompute the rest without it, resume.
/// The app shows whatever the store's state is, so it shows the travelled state.
///
/// The state is put back through ReduxCore's `UndoableState` (as an undo does: the difference is recorded,
/// so observers show it and persistence saves it with the next action), from the snapshots the
/// recorder took: record the state's `undoSnapshot`.
///
/// ```swift
/// let travel = DevToolsTimeTravel(store: store, recorder: recorder) { start in
///   Store(initialState: AppState(restoring: start), reducers: appReducers)  // to recompute
/// }
/// try travel.jump(to: 12)     // paused; the app shows the state after #12
/// try await travel.skip(7)    // the state as if #7 had never run
/// travel.resume()             // the held actions run, on the recomputed state
/// ```
@MainActor
@Observable
public final class DevToolsTimeTravel<
  State: UndoableState, Action: ReduxAction & Codable, Snapshot: Codable & Sendable
> where State.UndoSnapshot == Snapshot {
  /// The entry whose state the store shows, or `nil` while it runs live.
  public private(set) var position: Int?
  /// The entries left out of the recomputed state.
  public private(set) var skipped: Set<Int> = []

  @ObservationIgnored private let store: Store<State, Action>
  @ObservationIgnored private let recorder: DevToolsRecorder<State, Action, Snapshot>
  @ObservationIgnored private let makeStore: @MainActor (Snapshot) -> Store<State, Action>
  /// The state to come back to: the live one when the travel began, or the recomputed one.
  @ObservationIgnored private var present: Snapshot?
  /// The undo history of the recomputed state: the live one's holds states with the skipped
  /// action in them, which an undo after ``resume()`` would bring back.
  @ObservationIgnored private var presentHistory: UndoHistory<Snapshot>?

  /// - Parameters:
  ///   - store: The live store, whose inspector is `recorder`.
  ///   - recorder: Its recorder, which took `undoSnapshot` as the snapshot.
  ///   - makeStore: A store with the app's reducers (no side effects) starting from a snapshot,
  ///     to recompute the state when an action is skipped.
  public init(
    store: Store<State, Action>, recorder: DevToolsRecorder<State, Action, Snapshot>,
    makeStore: @escaping @MainActor (Snapshot) -> Store<State, Action>
  ) {
    self.store = store
    self.recorder = recorder
    self.makeStore = makeStore
  }

  /// Shows the state after entry `index` (0: where the recording started); the store holds
  /// new actions until ``resume()``.
  ///
  /// - Throws: ``DevToolsTravelError/notKept(_:)`` when the recorder no longer holds it.
  public func jump(to index: Int) throws(DevToolsTravelError) {
    guard let snapshot = recorder.snapshot(at: index) else { throw .notKept(index) }
    if position == nil {
      present = present ?? recorder.takeSnapshot(of: store)
      store.pause()
    }
    store.restoreWhilePaused(snapshot)
    position = index
  }

  /// Moves `offset` entries back (negative) or forward from the entry shown (the latest one
  /// while live), to the nearest one that has a state.
  ///
  /// - Throws: ``DevToolsTravelError/notKept(_:)`` past either end.
  public func step(by offset: Int) throws(DevToolsTravelError) {
    var index = (position ?? recorder.nextIndex - 1) + offset
    let direction = offset < 0 ? -1 : 1
    while index >= 0, index < recorder.nextIndex, recorder.snapshot(at: index) == nil {
      index += direction
    }
    try jump(to: index)
  }

  /// Leaves entry `index` out (or puts it back, if it was left out) and recomputes the state
  /// from the start of the recording: the store then shows the state as if it had never run,
  /// and ``resume()`` goes on from there.
  ///
  /// - Throws: ``DevToolsTravelError/startNotKept`` when the recorder no longer holds the start.
  public func skip(_ index: Int) async throws(DevToolsTravelError) {
    guard let start = recorder.snapshot(at: 0) else { throw .startNotKept }
    if skipped.remove(index) == nil { skipped.insert(index) }
    let replay = makeStore(start)
    defer { replay.shutdown() }
    for (entry, action) in recorder.actions(after: 0) where !skipped.contains(entry) {
      await replay.dispatchWithResult(action)
    }
    let recomputed = recorder.takeSnapshot(of: replay)
    if position == nil { store.pause() }
    store.restoreWhilePaused(recomputed)
    present = recomputed
    presentHistory = replay.undoHistory
    position = recorder.nextIndex - 1
  }

  /// Shows the present again (the recomputed one if an action was skipped, with the undo
  /// history of the recomputation, so that an undo steps back through the timeline without
  /// the skipped action) and runs the actions held meanwhile.
  public func resume() {
    guard store.isPaused else { return }
    if let present { store.restoreWhilePaused(present, undoHistory: presentHistory) }
    present = nil
    presentHistory = nil
    position = nil
    store.resume()
  }
}

/// Why a time travel step could not be taken.
public enum DevToolsTravelError: Error, Equatable, CustomStringConvertible {
  /// The recorder no longer holds that entry's state (its limits evicted it, or it never had
  /// one: a refusal, an event).
  case notKept(Int)
  /// The recorder no longer holds the state it started from, so nothing can be recomputed.
  case startNotKept

  public var description: String {
    switch self {
    case .notKept(let index): "entry #\(index) has no state kept to show"
    case .startNotKept: "the recording's start is no longer kept: nothing to recompute from"
    }
  }
}
