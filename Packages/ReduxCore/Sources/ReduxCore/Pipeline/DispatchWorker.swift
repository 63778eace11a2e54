/// Runs the pipeline on the main actor: drains the ``Dispatcher`` in batches, folds middlewares
/// around the reducers, routes errors to the resolvers, launches middleware tasks, and owns the
/// state subscriptions.
///
/// The store holds the worker; the worker never holds the store, so releasing the store ends
/// everything (see ``shutdown()``). Contexts hold the worker, and a middleware, reducer or
/// resolver may keep its context (in an object its closure captures, say): that closes a cycle
/// through the worker's stage arrays, which ``shutdown()`` breaks by releasing the stages.
@MainActor
@usableFromInline
final class DispatchWorker<State: ReduxState, Action: ReduxAction> {
  @usableFromInline typealias Log = Store<State, Action>.Log

  /// An admitted action waiting for the main actor.
  @usableFromInline
  struct Pending: Sendable {
    @usableFromInline let action: Action
    @usableFromInline let limited: Bool
    @usableFromInline let completion: Completion?

    @inlinable
    init(action: Action, limited: Bool, completion: Completion?) {
      self.action = action
      self.limited = limited
      self.completion = completion
    }
  }

  /// Who waits for an action's result.
  @usableFromInline
  enum Completion: Sendable {
    case callback(@Sendable (State.ReadOnly) -> Void)
    case continuation(CheckedContinuation<Result<State.ReadOnly, DispatchError>, Never>)
  }

  @usableFromInline let state: State
  @usableFromInline let readOnly: State.ReadOnly
  // NB: the stages are `var` only so that shutdown() can release them (see releaseStages()).
  // They are read on every action and written once, by shutdown() on the main actor, never
  // while a read is open: each read copies the element out before calling it. So the hot path
  // skips the dynamic exclusivity check that a `let` never paid.
  @usableFromInline @exclusivity(unchecked) var middlewares: [AnyMiddleware<State, Action>]
  @usableFromInline @exclusivity(unchecked) var reducers: [AnyReducer<State, Action>]
  @usableFromInline var resolvers: [AnyResolver<State, Action>]
  /// The stages' ids, which contexts report in logs even after shutdown.
  @usableFromInline nonisolated let middlewareIDs: [String]
  @usableFromInline nonisolated let reducerIDs: [String]
  nonisolated let resolverIDs: [String]
  @usableFromInline nonisolated let onLog: (@Sendable (Log) -> Void)?
  @usableFromInline nonisolated let dispatcher: Dispatcher<Pending>
  nonisolated let tasks = TaskManager()
  /// Flags `0 ..< reducerFlagOffset` belong to middlewares (`next`, `complete`), the rest to
  /// reducers (`complete`).
  @usableFromInline let reducerFlagOffset: Int
  @usableFromInline var spareFrame: DispatchFrame
  private var subscriptions: [ObjectIdentifier: any StateSubscription] = [:]
  @usableFromInline var isShutdown = false

  init(
    state: State,
    middlewares: [AnyMiddleware<State, Action>],
    resolvers: [AnyResolver<State, Action>],
    reducers: [AnyReducer<State, Action>],
    queueCapacity: Int,
    onLog: (@Sendable (Log) -> Void)?
  ) {
    self.state = state
    self.readOnly = state.readOnly
    self.middlewares = middlewares
    self.reducers = reducers
    self.resolvers = resolvers
    self.middlewareIDs = middlewares.map(\.id)
    self.reducerIDs = reducers.map(\.id)
    self.resolverIDs = resolvers.map(\.id)
    self.onLog = onLog
    self.dispatcher = Dispatcher(capacity: queueCapacity)
    self.reducerFlagOffset = 2 * middlewares.count
    self.spareFrame = DispatchFrame(flagCount: 2 * middlewares.count + reducers.count)
  }

  // MARK: - Admission (any thread)

  /// Admits an action, scheduling a main-actor drain if none is pending. A refusal is logged
  /// and returned.
  @inlinable @discardableResult
  nonisolated func enqueue(_ action: Action, limit: UInt, completion: Completion?)
    -> DispatchError?
  {
    let pending = Pending(action: action, limited: limit > 0, completion: completion)
    switch dispatcher.enqueue(pending, id: action.id, limit: limit) {
    case .accepted(let scheduleDrain):
      if scheduleDrain { Task { @MainActor in self.drain() } }
      return nil
    case .refused(let reason):
      onLog?(.store(.refused(action, reason: reason)))
      return reason
    }
  }

  nonisolated func enqueue(contentsOf actions: [Action], limit: UInt) {
    for action in actions { enqueue(action, limit: limit, completion: nil) }
  }

  @inlinable
  nonisolated func log(_ entry: Log) {
    onLog?(entry)
  }

  // MARK: - Pipeline (main actor)

  /// Processes every admitted action, batch after batch, until the queue is empty.
  @inlinable
  func drain() {
    var batch: [Pending] = []
    while true {
      switch dispatcher.nextBatch(into: &batch) {
      case .ready:
        for index in batch.indices {
          // NB: a middleware may shut the store down mid-batch; the rest must not run.
          guard !isShutdown else { return discard(batch[index...]) }
          process(batch[index])
        }
      case .idle(let waiters):
        for waiter in waiters { waiter.resume() }
        return
      case .shutdown:
        return
      }
    }
  }

  @inlinable
  func process(_ pending: Pending) {
    runMiddleware(at: 0, frame: prepareFrame(), action: pending.action)
    if pending.limited { dispatcher.release(id: pending.action.id) }
    switch pending.completion {
    case nil: break
    case .callback(let callback): callback(readOnly)
    case .continuation(let continuation): continuation.resume(returning: .success(readOnly))
    }
  }

  /// Reuses the frame of the previous action unless one of its contexts escaped (into a task,
  /// say) and may still call `next()` or `complete()`.
  @inlinable
  func prepareFrame() -> DispatchFrame {
    if isKnownUniquelyReferenced(&spareFrame) {
      spareFrame.reset()
    } else {
      spareFrame = DispatchFrame(flagCount: reducerFlagOffset + reducers.count)
    }
    return spareFrame
  }

  @inlinable
  func runMiddleware(at index: Int, frame: DispatchFrame, action: Action) {
    guard index < middlewares.count else { return reduce(action, frame: frame) }
    let context = MiddlewareContext(
      action: action, worker: self, frame: frame, index: index, start: now())
    do {
      try middlewares[index].handler(context)
    } catch {
      context.fail(with: error)
    }
  }

  @inlinable
  func reduce(_ action: Action, frame: DispatchFrame) {
    for index in reducers.indices {
      reducers[index].reduce(
        ReducerContext(
          state: state, action: action, worker: self, frame: frame, index: index, start: now()))
    }
  }

  /// Runs the resolver chain for `error` at once.
  @usableFromInline
  func resolve(_ error: any Error, action: Action, origin: Origin) {
    let frame = DispatchFrame(flagCount: 2 * resolvers.count)
    runResolver(at: 0, frame: frame, error: error, action: action, origin: origin)
  }

  func runResolver(
    at index: Int, frame: DispatchFrame, error: any Error, action: Action, origin: Origin
  ) {
    guard index < resolvers.count else {
      return log(.store(.unresolvedError(error, action: action, origin: origin)))
    }
    resolvers[index].run(
      ResolverContext(
        state: readOnly, action: action, error: error, origin: origin, worker: self,
        frame: frame, index: index, start: now()))
  }

  /// Starts a middleware task on the task runtime; its errors reach the resolvers.
  func launch(
    id: (any TaskID)?, action: Action, origin: Origin,
    _ operation: @escaping MiddlewareContext<State, Action>.TaskContext
  ) {
    let readOnly = self.readOnly
    let started = tasks.run(id: id) {
      try await operation(readOnly)
    } onFailure: { @MainActor [weak self] error in
      self?.resolve(error, action: action, origin: origin)
    }
    if started == nil { log(.store(.taskRefused(action, origin: origin))) }
  }

  /// The start of a timing, or `nil` (no clock read) when nobody listens to logs.
  @inlinable
  func now() -> ContinuousClock.Instant? {
    onLog == nil ? nil : ContinuousClock.now
  }

  // MARK: - Subscriptions

  func subscribe<Value: Equatable & Sendable>(
    to select: @escaping (State.ReadOnly) -> Value
  ) -> AsyncStream<Value> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: Value.self, bufferingPolicy: .bufferingNewest(1))
    guard !isShutdown else {
      continuation.finish()
      return stream
    }
    let subscription = SelectionSubscription(readOnly: readOnly, select: select, continuation)
    let key = ObjectIdentifier(subscription)
    subscriptions[key] = subscription
    continuation.onTermination = { [weak self] _ in
      Task { @MainActor in self?.subscriptions[key] = nil }
    }
    subscription.refresh()
    return stream
  }

  // MARK: - Teardown

  /// Refuses new actions, cancels every task, ends every subscription, releases the stages, and
  /// settles every pending action: `dispatchWithResult` callers resume with
  /// ``DispatchError/shutdown``, the others are logged as discarded.
  func shutdown() {
    guard !isShutdown else { return }
    isShutdown = true
    releaseStages()
    tasks.shutdown()
    let discarded = dispatcher.shutdown()
    discard(discarded[...])
    for subscription in subscriptions.values { subscription.finish() }
    subscriptions = [:]
    log(.store(.shutdown(discarded: discarded.count)))
  }

  /// Drops the middleware, reducer and resolver closures, so that a context one of them kept
  /// no longer keeps them, and through them itself and this worker, alive.
  ///
  /// What a kept context does afterwards reaches no user code: `next()` reaches the one
  /// reducer left, which logs the action as discarded; `resolve(_:)` logs the error as
  /// unresolved; `task` is refused and logged by the task runtime.
  private func releaseStages() {
    middlewares = []
    resolvers = []
    // NB: shutdown() may run inside a reducer while reduce(_:frame:) walks `reducers` by index,
    // so there are at least as many entries as before: the loop stays in range and runs no
    // user code past this point.
    let discarding = AnyReducer<State, Action>(id: "shutdown") { context in
      context.worker.log(.store(.discarded(context.action, reason: .shutdown)))
    }
    let idle = AnyReducer<State, Action>(id: "shutdown") { _ in }
    reducers = [discarding] + Array(repeating: idle, count: max(reducers.count - 1, 0))
  }

  @usableFromInline
  func discard(_ actions: ArraySlice<Pending>) {
    for pending in actions {
      if case .continuation(let continuation) = pending.completion {
        continuation.resume(returning: .failure(.shutdown))
      }
      log(.store(.discarded(pending.action, reason: .shutdown)))
    }
  }
}
