/// What a middleware receives for one action, and what it may do with it.
///
/// `next()` and `complete()` are once-only, including through ``args``: a second call does
/// nothing. The context may be kept and used later (for instance `next()` inside a task).
///
/// ## Reading the state
///
/// The context has no `state`: as in TinyRedux, a middleware decides on the action, and the
/// reducers change the state. The live read-only state is handed to the closure of ``task(_:)``,
/// which is where a middleware that must look at the state does so. A validating middleware:
///
/// ```swift
/// let validate = AnyMiddleware<NotesState, NotesAction>(id: "validate") { context in
///   guard case .delete(let id) = context.action else { return context.next() }
///   context.task { state in
///     guard state.notes[id] != nil else { throw NotesError.noSuchNote(id) }  // to the resolvers
///     context.next()  // the reducers run now
///   }
/// }
/// ```
///
/// Because the decision is taken in a task, after the synchronous pipeline,
/// `Store.dispatchWithOutcome` reports such an action as ``DispatchOutcome/stopped(middleware:)``
/// by `"validate"`; the error reaches the resolvers (and `onLog`, if none handles it) when the
/// task throws.
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
  @usableFromInline let frame: DispatchFrame
  @usableFromInline let index: Int
  /// When the stage started, in nanoseconds since the timings' epoch (0 when the store has no
  /// `onLog`).
  @usableFromInline let start: Int64

  @usableFromInline
  init(
    action: Action, frame: DispatchFrame, index: Int,
    start: Int64
  ) {
    self.action = action
    self.frame = frame
    self.index = index
    self.start = start
  }

  @inlinable
  var worker: DispatchWorker<State, Action> { frame.worker(as: DispatchWorker.self) }

  /// The id of the middleware this context belongs to.
  @inlinable
  public var middlewareID: String { worker.middlewareIDs[index] }

  /// Forwards ``action`` to the next middleware, or to the reducers. Once-only.
  ///
  /// - Complexity: Runs the rest of the pipeline at once: the remaining middlewares and every
  ///   reducer.
  @inlinable
  @MainActor public func next() {
    next(action)
  }

  /// Forwards `action` instead of the original one. Once-only (shared with ``next()``).
  ///
  /// - Parameter action: The action the rest of the pipeline receives.
  /// - Complexity: Runs the rest of the pipeline at once: the remaining middlewares and every
  ///   reducer.
  @inlinable
  @MainActor public func next(_ action: Action) {
    guard frame.consume(2 * index) else { return }
    worker.runMiddleware(at: index + 1, frame: frame, action: action)
  }

  /// Dispatches one action to the tail of the queue. A refusal is reported through `onLog`.
  ///
  /// - Parameter action: The action.
  /// - Complexity: Amortized O(1).
  public func dispatch(_ action: Action) {
    worker.enqueue(action, limit: 0, completion: nil, source: .middleware(at: index))
  }

  /// Dispatches actions to the tail of the queue, each limited by `maxDispatchable`
  /// (`0`: unlimited). A refusal is reported through `onLog`.
  ///
  /// - Parameters:
  ///   - maxDispatchable: How many actions with the same `id` may be pending at once.
  ///   - actions: The actions, queued in this order.
  /// - Complexity: Amortized O(*k*), where *k* is the number of actions.
  public func dispatch(_ maxDispatchable: UInt, _ actions: Action...) {
    worker.enqueue(contentsOf: actions, limit: maxDispatchable, source: .middleware(at: index))
  }

  /// Runs the resolvers for `error` at once, with this middleware as the origin. The middleware
  /// keeps running and may still call `next()`.
  ///
  /// - Parameter error: The error the resolvers receive.
  /// - Complexity: Runs the resolver chain at once: O(*n*) resolver calls at most, where *n* is
  ///   the number of resolvers.
  @MainActor public func resolve(_ error: any Error) {
    worker.resolve(error, action: action, origin: .middleware(middlewareID), pipeline: frame)
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
  ///
  /// - Parameters:
  ///   - id: The id to cancel or replace the task by.
  ///   - operation: The work; it receives the live read-only state.
  @MainActor public func task(id: some TaskID, _ operation: @escaping TaskContext) {
    worker.launch(id: id, action: action, origin: .middleware(middlewareID), operation)
  }

  /// Starts async work under `id` when `policy` admits it: debounce a search, throttle a
  /// refresh, cap concurrent uploads (``TaskManager/run(id:policy:priority:isolation:operation:onFailure:onRefusal:)``
  /// says how each policy treats tasks). Timed policies read the store's clock. A task that
  /// never runs is reported as ``Store/Event/taskRefused(_:origin:reason:)``.
  ///
  /// ```swift
  /// case .search(let text):
  ///   context.task(id: "search", policy: .debounce(.milliseconds(300))) { _ in
  ///     let hits = try await api.search(text)
  ///     context.dispatch(.results(hits))
  ///   }
  /// ```
  ///
  /// - Parameters:
  ///   - id: The id the policy counts by; the task is cancelled by it too.
  ///   - policy: How tasks with this id are admitted.
  ///   - operation: The work; it receives the live read-only state.
  @MainActor public func task(
    id: some TaskID, policy: AdmissionPolicy, _ operation: @escaping TaskContext
  ) {
    worker.launch(
      id: id, policy: policy, action: action, origin: .middleware(middlewareID), operation)
  }

  /// Emits this middleware's timing log (`.middleware(id, action, elapsed, result)`) when the
  /// store has an `onLog`. Once-only; a throw completes with the error automatically.
  ///
  /// - Parameter result: What the log reports: whether the middleware succeeded, or its error.
  @inlinable
  @MainActor public func complete(_ result: Result<Bool, any Error> = .success(true)) {
    guard worker.onLog != nil else { return }
    logCompletion(result)
  }

  /// NB: out of line, so that a `complete()` without `onLog` is one check in the middleware's
  /// code, not the room and the metadata for the log entry it does not make.
  @usableFromInline @inline(never)
  @MainActor func logCompletion(_ result: Result<Bool, any Error>) {
    guard frame.consume(2 * index + 1) else { return }
    worker.log(.middleware(middlewareID, action, worker.elapsed(since: start), result))
  }

  /// The context's capabilities as a tuple: `let (dispatch, resolve, task, next, action) = context.args`.
  /// The `next` in it is once-only, like ``next()``.
  public var args: (Dispatch, Resolve, TaskLauncher, Next, Action) {
    let context = self
    return (
      { limit, actions in
        context.worker.enqueue(
          contentsOf: actions, limit: limit, source: .middleware(at: context.index))
      },
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
