public import Synchronization

/// The origin of the pipeline's timings (``DispatchWorker/now()``).
///
/// NB: a global rather than a stored property of the worker: `ContinuousClock.Instant` is a
/// resilient type, and a stored one makes the offsets of every stored property after it
/// computed at run time, through its metadata, on every access.
@usableFromInline let timingEpoch = ContinuousClock.now

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
    // NB: the small fields first, so that they share the words after the action instead of
    // each padding out a word of its own (40 → 32 bytes for the benchmark's 9-byte action).
    @usableFromInline let action: Action
    @usableFromInline let limited: Bool
    /// Whether its policy must hear that it ran (`latest`, which replaces a queued dispatch
    /// only until then): the others' processed dispatches skip the admission lock, which the
    /// producers take on every dispatch.
    @usableFromInline let endsAdmission: Bool
    /// Who dispatched it, for an inspector: see ``SourceCode``.
    @usableFromInline let source: SourceCode
    /// The ``completion``.
    ///
    /// NB: an object reference rather than `Completion?`: the drain copies each record out of
    /// its batch, and an optional of the generic class was copied through its type's value
    /// witnesses (a metadata lookup and three calls, ~47 instructions an action) where an
    /// object reference is one retain, none at all for `nil`.
    @usableFromInline let waiter: (any AnyObject & Sendable)?
    /// Its ticket under an ``AdmissionPolicy`` (`latest`, `debounce`, `throttle`); 0 if none.
    @usableFromInline let ticket: Int

    /// Who waits for its result, if anyone.
    ///
    /// Only ``init(action:limited:completion:ticket:endsAdmission:source:)`` sets ``waiter``,
    /// to a `Completion`: the cast cannot fail.
    @inlinable
    var completion: Completion? {
      guard let waiter else { return nil }
      return unsafeDowncast(waiter, to: Completion.self)
    }

    @inlinable
    init(
      action: Action, limited: Bool, completion: Completion?, ticket: Int = 0,
      endsAdmission: Bool = false, source: SourceCode = .caller
    ) {
      self.action = action
      self.limited = limited
      self.waiter = completion
      self.ticket = ticket
      self.endsAdmission = endsAdmission
      self.source = source
    }
  }

  /// ``ActionSource`` as a plain integer: 0 the caller, `i + 1` the middleware at index `i`,
  /// `-(i + 1)` the resolver at index `i`.
  ///
  /// NB: not the enum, whose `String` payloads every queued action would copy, retain and
  /// release, inspected or not.
  @usableFromInline
  struct SourceCode: Sendable {
    @usableFromInline let value: Int32

    @inlinable init(value: Int32) { self.value = value }

    @usableFromInline static var caller: Self { Self(value: 0) }

    @inlinable static func middleware(at index: Int) -> Self { Self(value: Int32(index + 1)) }

    @inlinable static func resolver(at index: Int) -> Self { Self(value: -Int32(index + 1)) }
  }

  /// The ``ActionSource`` a code stands for.
  @usableFromInline
  func source(of code: SourceCode) -> ActionSource {
    if code.value > 0 { return .middleware(middlewareIDs[Int(code.value) - 1]) }
    if code.value < 0 { return .resolver(resolverIDs[Int(-code.value) - 1]) }
    return .caller
  }

  /// Who waits for an action's result.
  @usableFromInline typealias Completion = DispatchCompletion<State>

  @usableFromInline nonisolated let state: State
  @usableFromInline nonisolated let readOnly: State.ReadOnly
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
  @usableFromInline nonisolated let inspector: (any StoreInspector<State, Action>)?
  /// `inspector != nil`, read on every action: a plain flag, not an existential to load.
  @usableFromInline nonisolated let isInspected: Bool
  @usableFromInline nonisolated let dispatcher: Dispatcher<Pending>
  /// The store's task runtime, on the store's clock.
  @usableFromInline nonisolated let tasks: TaskManager
  /// The clock of the timed admission policies.
  @usableFromInline nonisolated let clock: ClockReader
  /// The policies registered on the store, by action id.
  @usableFromInline nonisolated let registeredPolicies: [String: AdmissionPolicy]
  /// Policy-governed dispatches: see ``DispatchAdmission``.
  @usableFromInline nonisolated let admission: Mutex<DispatchAdmission<Pending>> = Mutex(
    DispatchAdmission())
  /// Flags `0 ..< reducerFlagOffset` belong to middlewares (`next`, `complete`), the rest to
  /// reducers (`complete`).
  @usableFromInline let reducerFlagOffset: Int
  /// The flags of every middleware's `next()` (flag 2*i for middleware i) when they lie in a
  /// frame's first word: ``outcome(of:)`` tests them at once. `nil` past 32 middlewares.
  @usableFromInline nonisolated let everyMiddlewareForwarded: UInt64?
  // NB: the hot per-action fields skip dynamic exclusivity checks (about 100 instructions per
  // access on this path). Safe: they are main-actor isolated, so never accessed concurrently,
  // and no access to them spans a call that could reach them again (`nextBatch(into:)` runs
  // under the dispatcher's lock and calls no user code).
  /// The frame the next action reuses; `nil` once shut down (it holds this worker).
  @exclusivity(unchecked) @usableFromInline var spareFrame: DispatchFrame?
  /// The batch being processed and the position of its next action. They outlive a drain job:
  /// a job that runs out of time leaves the rest of its batch for the next job.
  @exclusivity(unchecked) @usableFromInline var batch: [Pending] = []
  @exclusivity(unchecked) @usableFromInline var cursor = 0
  @usableFromInline let subscriptions = StateSubscriptions()
  @exclusivity(unchecked) @usableFromInline var isShutdown = false
  /// While set, admitted actions wait in the queue (``Store/pause()``).
  @exclusivity(unchecked) @usableFromInline var isPaused = false
  /// Whether a drain job ended early because the store was paused: the dispatcher still counts
  /// it as running, and ``resume()`` must schedule the next one.
  @exclusivity(unchecked) @usableFromInline var isDrainHeld = false

  init(
    state: State,
    middlewares: [AnyMiddleware<State, Action>],
    resolvers: [AnyResolver<State, Action>],
    reducers: [AnyReducer<State, Action>],
    queueCapacity: Int,
    admissionPolicies: [String: AdmissionPolicy] = [:],
    clock: ClockReader = ClockReader(ContinuousClock()),
    inspector: (any StoreInspector<State, Action>)? = nil,
    onLog: (@Sendable (Log) -> Void)?
  ) {
    self.state = state
    self.inspector = inspector
    self.isInspected = inspector != nil
    self.registeredPolicies = admissionPolicies
    self.clock = clock
    self.tasks = TaskManager(clock: clock)
    self.readOnly = state.readOnly
    self.middlewares = middlewares
    self.reducers = reducers
    self.resolvers = resolvers
    self.middlewareIDs = middlewares.map(\.id)
    self.reducerIDs = reducers.map(\.id)
    self.resolverIDs = resolvers.map(\.id)
    self.onLog = onLog
    self.dispatcher = Dispatcher(capacity: max(queueCapacity, 1))
    self.reducerFlagOffset = 2 * middlewares.count
    self.everyMiddlewareForwarded =
      middlewares.count <= 32
      ? middlewares.indices.reduce(0) { flags, index in flags | 1 << UInt64(2 * index) } : nil
    self.spareFrame = nil
    if queueCapacity < 1 {
      let adjustment = "Store: queueCapacity \(queueCapacity) admits nothing; using 1"
      if let onLog {
        onLog(.store(.adjusted(adjustment)))
      } else {
        writeToStandardError("ReduxKit warning: \(adjustment)\n")
      }
    }
  }

  // MARK: - Admission (any thread)

  /// Admits an action, scheduling a main-actor drain if none is pending. A refusal is logged
  /// and returned.
  @inlinable @discardableResult
  nonisolated func enqueue(
    _ action: Action, limit: UInt, completion: Completion?, source: SourceCode = .caller
  ) -> DispatchError? {
    // NB: a store without registered policies never computes the id here.
    if limit == 0, !registeredPolicies.isEmpty, let policy = registeredPolicies[action.id] {
      return enqueue(action, policy: policy, completion: completion, source: source)
    }
    return enqueueAdmitted(action, limit: limit, completion: completion, source: source)
  }

  /// Admits an action under `limit` alone (`maxDispatchable`, or no policy).
  @inlinable @discardableResult
  nonisolated func enqueueAdmitted(
    _ action: Action, limit: UInt, completion: Completion?, source: SourceCode = .caller
  ) -> DispatchError? {
    let pending = Pending(
      action: action, limited: limit > 0, completion: completion, source: source)
    // NB: the id only counts for a rate-limited dispatch; an unlimited one does not compute it
    // (a derived id reflects on the action).
    switch dispatcher.enqueue(pending, id: limit > 0 ? action.id : "", limit: limit) {
    case .accepted(let scheduleDrain):
      if scheduleDrain { self.scheduleDrain() }
      return nil
    case .refused(let reason):
      reportRefusal(of: action, reason)
      return reason
    }
  }

  /// Reports a refusal through `onLog`, or once on standard error without one.
  @usableFromInline
  nonisolated func reportRefusal(of action: Action, _ reason: DispatchError) {
    inspector?.storeDidRefuse(action, reason: reason)
    if let onLog {
      onLog(.store(.refused(action, reason: reason)))
    } else if dispatcher.claimRefusalWarning() {
      warnOfUnheardRefusal(action.id, reason: reason)
    }
  }

  /// NB: without an `onLog`, a refused fire-and-forget dispatch would reach nobody; the first
  /// one is reported on standard error, and ``Store/refusedDispatchCount`` counts them all.
  @usableFromInline
  nonisolated func warnOfUnheardRefusal(_ id: String, reason: DispatchError) {
    writeToStandardError(
      "ReduxKit warning: a Store refused the action '\(id)' (\(reason)) and has no onLog; "
        + "further refusals are only counted in refusedDispatchCount. Pass onLog to see each.\n")
  }

  nonisolated func enqueue(
    contentsOf actions: [Action], limit: UInt, source: SourceCode = .caller
  ) {
    for action in actions { enqueue(action, limit: limit, completion: nil, source: source) }
  }

  @inlinable
  nonisolated func log(_ entry: Log) {
    onLog?(entry)
  }

  // MARK: - Pipeline (main actor)

  /// How long one main-actor drain job may run before it yields the main actor to other work.
  ///
  /// Producers may refill the queue as fast as it drains; without a bound, one job would hold
  /// the main actor (and a UI, a timer, a `shutdown()`) for as long as the flood lasts.
  @usableFromInline static var drainJobBudget: Duration { .milliseconds(2) }

  /// How many actions run between two clock reads of a drain job.
  @usableFromInline static var actionsPerClockRead: Int { 16 }

  /// Processes admitted actions, batch after batch, until the queue is empty or the job has run
  /// for ``drainJobBudget``; then it schedules the next job behind whatever else waits for the
  /// main actor.
  @inlinable
  func drain() {
    let deadline = ContinuousClock.now.advanced(by: Self.drainJobBudget)
    var sinceClockRead = 0
    while true {
      while cursor < batch.count {
        // NB: a middleware may shut the store down mid-batch; shutdown() discards the rest.
        guard !isShutdown else { return }
        // Paused, the rest waits for resume(), which schedules the next drain.
        guard !isPaused else {
          isDrainHeld = true
          return
        }
        let pending = batch[cursor]
        cursor += 1
        process(pending)
        sinceClockRead += 1
        if sinceClockRead == Self.actionsPerClockRead {
          sinceClockRead = 0
          if ContinuousClock.now >= deadline { return scheduleDrain() }
        }
      }
      // NB: a processed batch must not linger: shutdown() discards what `batch` still holds.
      batch.removeAll(keepingCapacity: true)
      cursor = 0
      guard !isPaused else {
        isDrainHeld = true
        return
      }
      switch dispatcher.nextBatch(into: &batch) {
      case .ready:
        continue
      case .idle(let waiters):
        for waiter in waiters { waiter.resume() }
        return
      case .shutdown:
        return
      }
    }
  }

  /// Schedules a drain job on the main actor, behind the jobs already waiting there.
  ///
  /// NB: inlinable, so that the job runs the drain specialised for the app's state and action
  /// types; the unspecialised drain costs about a third more instructions per action.
  @inlinable
  nonisolated func scheduleDrain() {
    Task { @MainActor in self.drain() }
  }

  // NB: always inlined into drain(): with the inspected branch it grew past what the
  // optimizer inlines on its own, which cost about 40 instructions per action.
  @inlinable @inline(__always)
  func process(_ pending: Pending) {
    if isInspected { return processInspected(pending) }
    let frame = prepareFrame()
    runMiddleware(at: 0, frame: frame, action: pending.action)
    if pending.limited { dispatcher.release(id: pending.action.id) }
    if pending.endsAdmission { admissionEnded(pending.ticket) }
    pending.completion?.finish(state: readOnly) { outcome(of: frame) }
  }

  /// ``process(_:)`` for a store with an inspector: timed, and reported with its outcome.
  ///
  /// NB: inlinable (specialized for the app's types, as the rest of the pipeline) but never
  /// inlined (it stays out of the uninspected path).
  @inlinable @inline(never)
  func processInspected(_ pending: Pending) {
    let started = ContinuousClock.now
    let frame = prepareFrame()
    runMiddleware(at: 0, frame: frame, action: pending.action)
    if pending.limited { dispatcher.release(id: pending.action.id) }
    if pending.endsAdmission { admissionEnded(pending.ticket) }
    let outcome = outcome(of: frame)
    let finished = ContinuousClock.now
    inspector?.storeDidRun(
      pending.action, source: source(of: pending.source), outcome: outcome, state: readOnly,
      duration: finished - started, finished: finished)
    pending.completion?.finish(state: readOnly) { outcome }
  }

  // MARK: - Pausing (main actor)

  /// Holds the actions admitted from now on in the queue; the one running finishes.
  func pause() {
    isPaused = true
  }

  /// Runs the held actions, and those admitted later, again.
  func resume() {
    guard isPaused else { return }
    isPaused = false
    if isDrainHeld {
      isDrainHeld = false
      scheduleDrain()
    }
  }

  /// What happened in the synchronous pipeline whose flags `frame` holds: middleware `i` ran
  /// only if every middleware before it forwarded, so the first that did not is the one that
  /// stopped the action.
  ///
  /// - Complexity: O(*m*), *m* the number of middlewares; read only when a caller or an
  ///   inspector asked for it.
  ///
  /// NB: inlinable, so that it is specialized with the rest of the pipeline: run generically, it
  /// looked up the worker's metadata to read its ids (about 100 instructions per inspected
  /// action).
  @inlinable
  func outcome(of frame: DispatchFrame) -> DispatchOutcome {
    // NB: the flag first: reading `failure` is checked for exclusivity at run time (about 75
    // instructions), and most actions have none.
    if frame.hasFailure, let failure = frame.failure {
      return .failed(failure.error, origin: failure.origin, handledBy: failure.handledBy)
    }
    if let everyMiddlewareForwarded,
      frame.flags & everyMiddlewareForwarded == everyMiddlewareForwarded
    {
      return .reduced
    }
    // NB: the ids, not the stages: shutdown() may have released the stages mid-pipeline.
    for index in middlewareIDs.indices where !frame.isConsumed(2 * index) {
      return .stopped(middleware: middlewareIDs[index])
    }
    return .reduced
  }

  /// Reuses the frame of the previous action unless one of its contexts escaped (into a task,
  /// say) and may still call `next()` or `complete()`.
  @inlinable
  func prepareFrame() -> DispatchFrame {
    if isKnownUniquelyReferenced(&spareFrame), let frame = spareFrame {
      frame.reset()
      return frame
    }
    let frame = DispatchFrame(owner: self, flagCount: reducerFlagOffset + reducers.count)
    // NB: never kept once shut down, or the frame would keep this worker alive.
    if !isShutdown { spareFrame = frame }
    return frame
  }

  // NB: specialised, never inlined: inlined into `MiddlewareContext.next(_:)`, the contexts it
  // makes were copied and destroyed through value witnesses in the middlewares' closures
  // (about 330 instructions per action with three middlewares).
  @inlinable @inline(never)
  func runMiddleware(at index: Int, frame: DispatchFrame, action: Action) {
    guard index < middlewares.count else { return reduce(action, frame: frame) }
    let context = MiddlewareContext<State, Action>(
      action: action, frame: frame, index: index, start: now())
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
        ReducerContext<State, Action>(action: action, frame: frame, index: index, start: now()))
    }
    subscriptions.stateMayHaveChanged()
  }

  /// Runs the resolver chain for `error` at once. When the error arose in the synchronous
  /// pipeline of an action, `pipeline` is that pass's frame, which records it for the action's
  /// outcome (the first error only).
  @usableFromInline
  func resolve(
    _ error: any Error, action: Action, origin: Origin,
    pipeline: DispatchFrame? = nil
  ) {
    let frame = DispatchFrame(owner: self, flagCount: 2 * resolvers.count)
    runResolver(at: 0, frame: frame, error: error, action: action, origin: origin)
    guard let pipeline, pipeline.failure == nil else { return }
    // NB: resolver `i` ran only if every resolver before it forwarded (called `next`).
    let handler = resolvers.indices.first { !frame.isConsumed(2 * $0) }
    pipeline.recordFailure(error, origin: origin, handledBy: handler.map { resolverIDs[$0] })
  }

  func runResolver(
    at index: Int, frame: DispatchFrame, error: any Error, action: Action,
    origin: Origin
  ) {
    guard index < resolvers.count else {
      return log(.store(.unresolvedError(error, action: action, origin: origin)))
    }
    resolvers[index].run(
      ResolverContext(
        state: readOnly, action: action, error: error, origin: origin, frame: frame,
        index: index, start: now()))
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
    if started == nil { log(.store(.taskRefused(action, origin: origin, reason: .shutdown))) }
  }

  /// Starts a middleware task on the task runtime when `policy` admits it; its errors reach the
  /// resolvers, and its refusal the log.
  func launch(
    id: some TaskID, policy: AdmissionPolicy, action: Action, origin: Origin,
    _ operation: @escaping MiddlewareContext<State, Action>.TaskContext
  ) {
    let readOnly = self.readOnly
    tasks.run(id: id, policy: policy) {
      try await operation(readOnly)
    } onFailure: { @MainActor [weak self] error in
      self?.resolve(error, action: action, origin: origin)
    } onRefusal: { @MainActor [weak self] reason in
      self?.log(.store(.taskRefused(action, origin: origin, reason: reason)))
    }
  }

  /// The start of a timing in nanoseconds since ``timingEpoch``, or 0 (no clock read) when
  /// nobody listens to logs.
  ///
  /// NB: an integer rather than a `ContinuousClock.Instant` or a `Duration`: the instant is a
  /// resilient type (every context holding one was destroyed through value witnesses), and
  /// `Duration.zero` is a call into the standard library for each of the six contexts of an
  /// action. The clock is read out of line, so the stages' code does not reserve room for a
  /// resilient `Instant` (a metadata lookup on every call) when there is no `onLog`.
  @inlinable
  func now() -> Int64 {
    onLog == nil ? 0 : Self.nanosecondsSinceEpoch()
  }

  @usableFromInline @inline(never)
  nonisolated static func nanosecondsSinceEpoch() -> Int64 {
    let elapsed = timingEpoch.duration(to: .now).components
    return elapsed.seconds &* 1_000_000_000 &+ elapsed.attoseconds / 1_000_000_000
  }

  /// The time since `start`, a value of ``now()``.
  @usableFromInline
  nonisolated func elapsed(since start: Int64) -> Duration {
    .nanoseconds(Self.nanosecondsSinceEpoch() - start)
  }

  // MARK: - Subscriptions

  @inlinable
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
    subscriptions.add(
      key, .init(refresh: subscription.refresh, finish: subscription.finish))
    continuation.onTermination = { [weak subscriptions] _ in
      Task { @MainActor in subscriptions?.remove(key) }
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
    spareFrame = nil
    releaseStages()
    tasks.shutdown()
    // NB: the unprocessed rest of the running batch was admitted before the queue's content.
    let unprocessed = batch[cursor...]
    let queued = dispatcher.shutdown()
    let held = shutDownAdmission()
    discard(unprocessed)
    discard(queued[...])
    discard(held[...])
    batch = []
    cursor = 0
    subscriptions.finishAll()
    log(.store(.shutdown(discarded: unprocessed.count + queued.count + held.count)))
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
      pending.completion?.refuse(.shutdown, state: readOnly)
      log(.store(.discarded(pending.action, reason: .shutdown)))
    }
  }
}
