/// What a resolver receives for one error, and what it may do with it.
///
/// `next()` and `complete()` are once-only, including through ``args``.
public struct ResolverContext<State: ReduxState, Action: ReduxAction>: Sendable {
  /// Dispatches actions to the tail of the queue: `dispatch(maxDispatchable, actions...)`.
  public typealias Dispatch = MiddlewareContext<State, Action>.Dispatch
  /// Forwards the error to the next resolver, as ``next()`` does.
  public typealias Next = @MainActor @Sendable () -> Void

  /// The live read-only state.
  public let state: State.ReadOnly
  /// The action during which the error happened.
  public let action: Action
  /// The error.
  public let error: any Error
  /// Where the error came from.
  public let origin: Origin
  @usableFromInline let frame: DispatchFrame
  @usableFromInline let index: Int
  /// When the stage started, in nanoseconds since the timings' epoch (0 when the store has no
  /// `onLog`).
  @usableFromInline let start: Int64

  init(
    state: State.ReadOnly, action: Action, error: any Error, origin: Origin,
    frame: DispatchFrame, index: Int,
    start: Int64
  ) {
    self.state = state
    self.action = action
    self.error = error
    self.origin = origin
    self.frame = frame
    self.index = index
    self.start = start
  }

  @inlinable
  var worker: DispatchWorker<State, Action> { frame.worker(as: DispatchWorker.self) }

  /// The id of the resolver this context belongs to.
  public var resolverID: String { worker.resolverIDs[index] }

  /// Forwards the error to the next resolver. Once-only.
  ///
  /// - Complexity: Runs the rest of the resolver chain at once.
  @MainActor public func next() {
    next(error, action)
  }

  /// Forwards another error or action to the next resolver. Once-only (shared with ``next()``).
  ///
  /// - Parameters:
  ///   - error: The error the next resolver receives.
  ///   - action: The action the next resolver receives.
  /// - Complexity: Runs the rest of the resolver chain at once.
  @MainActor public func next(_ error: any Error, _ action: Action) {
    guard frame.consume(2 * index) else { return }
    worker.runResolver(at: index + 1, frame: frame, error: error, action: action, origin: origin)
  }

  /// Dispatches one action to the tail of the queue. A refusal is reported through `onLog`.
  ///
  /// - Parameter action: The action.
  /// - Complexity: Amortized O(1).
  public func dispatch(_ action: Action) {
    worker.enqueue(action, limit: 0, completion: nil, source: .resolver(at: index))
  }

  /// Dispatches actions to the tail of the queue, each limited by `maxDispatchable`
  /// (`0`: unlimited). A refusal is reported through `onLog`.
  ///
  /// - Parameters:
  ///   - maxDispatchable: How many actions with the same `id` may be pending at once.
  ///   - actions: The actions, queued in this order.
  /// - Complexity: Amortized O(*k*), where *k* is the number of actions.
  public func dispatch(_ maxDispatchable: UInt, _ actions: Action...) {
    worker.enqueue(contentsOf: actions, limit: maxDispatchable, source: .resolver(at: index))
  }

  /// Emits this resolver's timing log when the store has an `onLog`. Once-only.
  ///
  /// - Parameter succeeded: Whether the resolver handled the error.
  @MainActor public func complete(_ succeeded: Bool = true) {
    guard worker.onLog != nil, frame.consume(2 * index + 1) else { return }
    worker.log(.resolver(resolverID, action, worker.elapsed(since: start), succeeded, error))
  }

  /// `let (state, dispatch, next, origin, error, action) = context.args`. The `next` in it is
  /// once-only, like ``next()``.
  public var args: (State.ReadOnly, Dispatch, Next, Origin, any Error, Action) {
    let context = self
    return (
      state,
      { limit, actions in
        context.worker.enqueue(
          contentsOf: actions, limit: limit, source: .resolver(at: context.index))
      },
      { context.next() },
      origin,
      error,
      action
    )
  }
}
