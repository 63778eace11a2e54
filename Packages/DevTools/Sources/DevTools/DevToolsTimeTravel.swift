import Observation
public import ReduxCore

/// Time travel on a live store: show the state after any recorded action (the store paused
/// meanwhile), step back and forth, skip an action and recompute the rest without it, resume.
/// The app shows whatever the store's state is, so it shows the travelled state.
///
/// The state is put back through ReduxCore's `UndoableState` (as an undo does: the difference is
/// recorded, so observers show it), from the snapshots the recorder took: record the state's
/// `undoSnapshot`. Persistence saves what a reducer pass hands it: give the travel a
/// `resumeAction` (one the reducers ignore), dispatched on ``resume()``, so that the present
/// (without a skipped action) is saved at once rather than with the app's next action.
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
  @ObservationIgnored private let resumeAction: Action?
  /// The state to come back to: the live one when the travel began, or the recomputed one.
  @ObservationIgnored private var present: Snapshot?
  /// The undo history of the recomputed state: the live one's holds states with the skipped
  /// action in them, which an undo after ``resume()`` would bring back.
  @ObservationIgnored private var presentHistory: UndoHistory<Snapshot>?
  /// The states the last skip recomputed, by entry: what a jump shows of the entries after the
  /// first skipped one (the recorded states still hold the skipped actions).
  @ObservationIgnored private var recomputed: [Int: Snapshot] = [:]

  /// - Parameters:
  ///   - store: The live store, whose inspector is `recorder`.
  ///   - recorder: Its recorder, which took `undoSnapshot` as the snapshot.
  ///   - resumeAction: Dispatched by ``resume()`` once the present is back, so that its
  ///     reducer pass hands what the travel changed to persistence (a middleware or reducer that
  ///     saves the state's changes) at once; an action the app's reducers ignore (and its undo
  ///     history does not record). Without it, those changes wait for the app's next action.
  ///   - makeStore: A store with the app's reducers (no side effects) starting from a snapshot,
  ///     to recompute the state when an action is skipped.
  public init(
    store: Store<State, Action>, recorder: DevToolsRecorder<State, Action, Snapshot>,
    resumeAction: Action? = nil,
    makeStore: @escaping @MainActor (Snapshot) -> Store<State, Action>
  ) {
    self.store = store
    self.recorder = recorder
    self.resumeAction = resumeAction
    self.makeStore = makeStore
  }

  /// Shows the state after entry `index` (0: where the recording started); the store holds
  /// new actions until ``resume()``.
  ///
  /// - Throws: ``DevToolsTravelError/notKept(_:)`` when the recorder no longer holds it.
  public func jump(to index: Int) throws(DevToolsTravelError) {
    guard let snapshot = snapshot(at: index) else { throw .notKept(index) }
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
    while index >= 0, index < recorder.nextIndex, snapshot(at: index) == nil {
      index += direction
    }
    try jump(to: index)
  }

  /// Leaves entry `index` out (or puts it back, if it was left out) and recomputes the state
  /// from the oldest state the recorder holds (the start, until its limits evict entries): the
  /// store then shows the state as if it had never run, ``jump(to:)`` and ``step(by:)`` show
  /// the recomputed states after it, and ``resume()`` goes on from there.
  ///
  /// - Throws: ``DevToolsTravelError/beforeOldestKept(_:oldest:)`` when the entry, or one
  ///   skipped before, is not after the oldest state kept: the states after it cannot be
  ///   recomputed (replaying only the actions kept onto the start would make up a state the
  ///   app never had, and the app would save it).
  public func skip(_ index: Int) async throws(DevToolsTravelError) {
    let (base, start) = oldestKept()
    guard let start else { throw .startNotKept }
    var skipping = skipped
    if skipping.remove(index) == nil { skipping.insert(index) }
    if let first = skipping.min(), first <= base { throw .beforeOldestKept(first, oldest: base) }
    skipped = skipping
    let replay = makeStore(start)
    defer { replay.shutdown() }
    var states: [Int: Snapshot] = [:]
    for (entry, action) in recorder.actions(after: base) {
      if !skipped.contains(entry) { await replay.dispatchWithResult(action) }
      if let first = skipped.min(), entry >= first {
        states[entry] = recorder.takeSnapshot(of: replay)
      }
    }
    let recomputedPresent = recorder.takeSnapshot(of: replay)
    recomputed = states
    if position == nil { store.pause() }
    store.restoreWhilePaused(recomputedPresent)
    present = recomputedPresent
    presentHistory = replay.undoHistory
    position = recorder.nextIndex - 1
  }

  /// The state to show after entry `index`: recomputed after a skipped entry, else recorded.
  private func snapshot(at index: Int) -> Snapshot? {
    guard let recorded = recomputed[index] else { return recorder.snapshot(at: index) }
    // NB: an entry the recorder has evicted since is not shown, recomputed or not.
    return index >= oldestKept().index ? recorded : nil
  }

  /// The oldest entry whose state the recorder holds, and that state: the start, until the
  /// recorder's limits evict entries (the start's state is kept, but the actions after it are
  /// not all there to replay), then the oldest entry kept that has a state.
  private func oldestKept() -> (index: Int, state: Snapshot?) {
    guard recorder.evictedCount > 0 else { return (0, recorder.snapshot(at: 0)) }
    var index = recorder.nextIndex - recorder.keptCount
    while index < recorder.nextIndex {
      if let state = recorder.snapshot(at: index) { return (index, state) }
      index += 1
    }
    return (recorder.nextIndex, nil)
  }

  /// Shows the present again (the recomputed one if an action was skipped, with the undo
  /// history of the recomputation, so that an undo steps back through the timeline without
  /// the skipped action), runs the actions held meanwhile, then dispatches the
  /// `resumeAction`, if any.
  public func resume() {
    guard store.isPaused else { return }
    if let present {
      store.restoreWhilePaused(present, undoHistory: presentHistory)
      // NB: recomputed without skipped entries: the recording says so, for a replay.
      if presentHistory != nil, !skipped.isEmpty {
        recorder.recordResume(skipping: skipped.sorted(), on: present)
      }
    }
    present = nil
    presentHistory = nil
    position = nil
    store.resume()
    // NB: a refusal (a full queue, a store shut down) reaches the store's onLog; the changes
    // then wait for the next action.
    if let resumeAction { store.dispatch(resumeAction) }
  }
}

/// Why a time travel step could not be taken.
public enum DevToolsTravelError: Error, Equatable, CustomStringConvertible {
  /// The recorder no longer holds that entry's state (its limits evicted it, or it never had
  /// one: a refusal, an event).
  case notKept(Int)
  /// The recorder no longer holds the state it started from, so nothing can be recomputed.
  case startNotKept
  /// Entry `index` (to skip, or skipped before) is not after `oldest`, the oldest entry whose
  /// state the recorder still holds: the states after it cannot be recomputed.
  case beforeOldestKept(Int, oldest: Int)

  public var description: String {
    switch self {
    case .notKept(let index): "entry #\(index) has no state kept to show"
    case .startNotKept: "the recording's start is no longer kept: nothing to recompute from"
    case .beforeOldestKept(let index, let oldest):
      "#\(index) cannot be skipped: the state before it is no longer recorded (the oldest "
        + "kept is the one after #\(oldest); a recorder with a larger capacity keeps more)"
    }
  }
}
