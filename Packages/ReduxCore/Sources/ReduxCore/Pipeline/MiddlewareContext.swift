/// What a middleware receives for one action, and what it may do with it.
///
/// `next()` and `complete()` are once-only, including through ``args``: a second call does
/// nothing. The context may be kept and used later (for instance `next()` inside a task).
///
/// - Note: When `next` is called later, inside a task, the reducers run for the action then,
///   after the synchronous pipeline has finished. The action's completion (and
///   `dispatchWithResult`) reports the state after the synchronous pipeline, and its
///   `maxDispatchable` slot is already free.
public struct MiddlewareContext<State: ReduxState, Action: ReduxAction>: Sendable {
  /// Dispatches actions to the tail of the queue: `dispatch(maxDispatchable, actions...)`.
  public typealias Dispatch = @Sendable (UInt, Action...) -> Void
  /// Routes an error to the resolvers at once.
  public typealias Resolve = @MainActor @Sendable (any Error) -> Void
  /// Forwards an action (the same one or another) to the rest of the pipeline.
  public typealias Next = @MainActor @Sendable (Action) -> Void
  /// Async work started by a middleware; it runs on the main actor.
  public typealias TaskContext = @MainActor @Sendable (State.ReadOnly) async throws -> Void
  /// Starts a ``TaskContext``.
  public typealias TaskLauncher = @MainActor @Sendable (@escaping TaskContext) -> Void

  /// The action being dispatched.
  public let action: Action
  @usableFromInline let worker: DispatchWorker<State, Action>
  @usableFromInline let frame: DispatchFrame
  @usableFromInline let index: Int
  @usableFromInline let start: ContinuousClock.Instant?

  @usableFromInline
  init(
    action: Action, worker: DispatchWorker<State, Action>, frame: DispatchFrame, index: Int,
    start: ContinuousClock.Instant?
  ) {
    self.action = action
    self.worker = worker
    self.frame = frame
    self.index = index
    self.start = start
  }

  /// The id of the middleware this context belongs to.
  @inlinable
  public var middlewareID: String { worker.middlewareIDs[index] }

  /// Forwards ``action`` to the next middleware, or to the reducers. Once-only.
  @inlinable
  @MainActor public func next() {
    next(action)
  }

  /// Forwards `action` instead of the original one. Once-only (shared with ``next()``).
  @inlinable
  @MainActor public func next(_ action: Action) {
    guard frame.consume(2 * index) else { return }
    worker.runMiddleware(at: index + 1, frame: frame, action: action)
  }

  /// Dispatches one action to the tail of the queue. A refusal is reported through `onLog`.
  public func dispatch(_ action: Action) {
    worker.enqueue(action, limit: 0, completion: nil)
  }

  /// Dispatches actions to the tail of the queue, each limited by `maxDispatchable`
  /// (`0`: unlimited). A refusal is reported through `onLog`.
  public func dispatch(_ maxDispatchable: UInt, _ actions: Action...) {
    worker.enqueue(contentsOf: actions, limit: maxDispatchable)
  }

  /// Runs the resolvers for `error` at once, with this middleware as the origin. The middleware
  /// keeps running and may still call `next()`.
  @MainActor public func resolve(_ error: any Error) {
    worker.resolve(error, action: action, origin: .middleware(middlewareID))
  }

  /// Starts async work on the main actor. A throw inside reaches the resolvers with this
  /// middleware as the origin; the task is cancelled when the store goes away.
  ///
  /// - Parameter operation: The work; it receives the live read-only state.
  @MainActor public func task(_ operation: @escaping TaskContext) {
    worker.launch(id: nil, action: action, origin: .middleware(middlewareID), operation)
  }

  /// Starts async work under `id`, cancelling and replacing a live task with the same id
  /// (use it to debounce, or to keep only the latest search).
  @MainActor public func task(id: some TaskID, _ operation: @escaping TaskContext) {
    worker.launch(id: id, action: action, origin: .middleware(middlewareID), operation)
  }

  /// Emits this middleware's timing log (`.middleware(id, action, elapsed, result)`) when the
  /// store has an `onLog`. Once-only; a throw completes with the error automatically.
  @inlinable
  @MainActor public func complete(_ result: Result<Bool, any Error> = .success(true)) {
    guard let start, frame.consume(2 * index + 1) else { return }
    worker.log(.middleware(middlewareID, action, ContinuousClock.now - start, result))
  }

  /// The context's capabilities as a tuple: `let (dispatch, resolve, task, next, action) = context.args`.
  /// The `next` in it is once-only, like ``next()``.
  public var args: (Dispatch, Resolve, TaskLauncher, Next, Action) {
    let context = self
    return (
      { limit, actions in context.worker.enqueue(contentsOf: actions, limit: limit) },
      { context.resolve($0) },
      { context.task($0) },
      { context.next($0) },
      action
    )
  }

  @usableFromInline
  @MainActor func fail(with error: any Error) {
    complete(.failure(error))
    resolve(error)
  }
}
