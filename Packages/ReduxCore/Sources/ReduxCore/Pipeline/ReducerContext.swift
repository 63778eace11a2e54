/// What a reducer receives: the mutable state and the action.
public struct ReducerContext<State: ReduxState, Action: ReduxAction>: Sendable {
  /// The mutable state.
  public let state: State
  /// The action being reduced.
  public let action: Action
  @usableFromInline let worker: DispatchWorker<State, Action>
  @usableFromInline let frame: DispatchFrame
  @usableFromInline let index: Int
  @usableFromInline let start: Duration?

  @usableFromInline
  init(
    state: State, action: Action, worker: DispatchWorker<State, Action>, frame: DispatchFrame,
    index: Int, start: Duration?
  ) {
    self.state = state
    self.action = action
    self.worker = worker
    self.frame = frame
    self.index = index
    self.start = start
  }

  /// The id of the reducer this context belongs to.
  @inlinable
  public var reducerID: String { worker.reducerIDs[index] }

  /// Emits this reducer's timing log (`.reducer(id, action, elapsed, succeeded)`) when the store
  /// has an `onLog`. Once-only.
  ///
  /// - Parameter succeeded: Whether the reducer succeeded.
  @inlinable
  @MainActor public func complete(_ succeeded: Bool = true) {
    guard let start, frame.consume(worker.reducerFlagOffset + index) else { return }
    worker.log(.reducer(reducerID, action, worker.elapsed(since: start), succeeded))
  }

  /// `let (state, action) = context.args`.
  public var args: (State, Action) { (state, action) }
}
