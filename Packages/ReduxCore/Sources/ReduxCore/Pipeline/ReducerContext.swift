/// What a reducer receives: the mutable state and the action.
public struct ReducerContext<State: ReduxState, Action: ReduxAction>: Sendable {
  /// The mutable state.
  @inlinable
  public var state: State { worker.state }
  /// The action being reduced.
  public let action: Action
  @usableFromInline let frame: DispatchFrame
  @usableFromInline let index: Int
  /// When the stage started, in nanoseconds since the timings' epoch (0 when the store has no
  /// `onLog`).
  @usableFromInline let start: Int64

  @usableFromInline
  init(
    action: Action, frame: DispatchFrame, index: Int, start: Int64
  ) {
    self.action = action
    self.frame = frame
    self.index = index
    self.start = start
  }

  @inlinable
  var worker: DispatchWorker<State, Action> { frame.worker(as: DispatchWorker.self) }

  /// The id of the reducer this context belongs to.
  @inlinable
  public var reducerID: String { worker.reducerIDs[index] }

  /// Emits this reducer's timing log (`.reducer(id, action, elapsed, succeeded)`) when the store
  /// has an `onLog`. Once-only.
  ///
  /// - Parameter succeeded: Whether the reducer succeeded.
  @inlinable
  @MainActor public func complete(_ succeeded: Bool = true) {
    guard worker.onLog != nil else { return }
    logCompletion(succeeded)
  }

  /// NB: out of line, as ``MiddlewareContext``'s: without `onLog`, `complete()` is one check.
  @usableFromInline @inline(never)
  @MainActor func logCompletion(_ succeeded: Bool) {
    guard frame.consume(worker.reducerFlagOffset + index) else { return }
    worker.log(.reducer(reducerID, action, worker.elapsed(since: start), succeeded))
  }

  /// `let (state, action) = context.args`.
  public var args: (State, Action) { (state, action) }
}
