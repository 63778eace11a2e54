public import Logging
public import Observation
import ReduxCore

/// Persists the state's `EntityStore`s without save calls in feature code: drains their changes
/// after every reduce, coalesces them by id, and flushes them in batches.
///
/// ```swift
/// let persistence = PersistenceMiddleware<AppState>(writers: [
///   StateWriter(keyPath: \.tags) { writes, deletions in … },   // leaf entities first
///   StateWriter(keyPath: \.items) { writes, deletions in … },
/// ])
/// // after each reducer call:
/// persistence.afterReduce(state: &state)
/// ```
///
/// ## When a flush happens
/// - `debounce` after the last drain (the seed's debounce: rapid changes coalesce), and
/// - at the latest `maxWait` after the first drain not yet flushed, however busy the state is,
///   so a steady stream of changes cannot starve the flush;
/// - at once on ``flush()`` and ``shutdown()``.
///
/// A flush persists every writer's batch **in registration order** (put leaf entities first:
/// a writer whose rows reference another writer's rows must come after it). Flushes never
/// overlap: changes drained while one runs go into the next.
///
/// ## When a flush fails
/// Its batches stay pending (newer changes to the same ids coalesce over them) and are retried
/// with backoff (``RetryPolicy``). The error is logged, recorded in ``status``, and thrown from
/// ``flush()``. Nothing is dropped.
///
/// A write the database refuses for good (``RejectedWrite``: an entity that does not encode, a
/// value a column cannot hold, a broken constraint) does not fail the flush: it is set aside,
/// the rest commits, and it is reported once, in ``PersistenceStatus/rejected``, in the log,
/// and as ``PersistenceMiddlewareError/rejected(_:)`` from ``flush()``. It waits for the app:
/// a new change to that entity replaces it, ``retryRejected(_:)`` tries it again,
/// ``discardRejected(_:)`` drops it.
///
/// ## Durability
/// After ``flush()`` returns, every change drained before the call is persisted. Without an
/// explicit flush, a drained change is persisted within `maxWait` plus the duration of one flush,
/// unless flushes fail (then at the first successful retry).
///
/// Timers read the injected `clock` (ReduxCoreTesting's `ManualClock` in tests) and run on
/// ReduxCore's ``/ReduxCore/TaskManager``.
@MainActor
@Observable
public final class PersistenceMiddleware<State> {
  /// What the middleware is doing: pending changes, the last flush, the last error.
  public private(set) var status = PersistenceStatus()

  /// The quiet time after the last drain before a flush.
  public var debounce: Duration { schedule.debounce }
  /// The longest a drained change waits for a flush while flushes succeed.
  public var maxWait: Duration { schedule.maxWait }
  /// The backoff between retries of a failed flush.
  public var retry: RetryPolicy { schedule.retry }
  /// Drains in one flush window beyond which a possible dispatch loop is logged, once.
  public var loopThreshold: Int { schedule.loopThreshold }

  @ObservationIgnored private let writers: [StateWriter<State>]
  @ObservationIgnored private let clock: ClockReader
  /// Commits the batches of the writers bound to the middleware's backend in one transaction.
  @ObservationIgnored private let backend: FlushCommitter?
  @ObservationIgnored let logger: Logger
  @ObservationIgnored private let tasks = TaskManager()
  /// When to flush; this class performs what it decides.
  @ObservationIgnored private var schedule:
    PersistenceFlushStateMachine<CheckedContinuation<Void, Never>>

  private typealias Timer = PersistenceFlushStateMachine<CheckedContinuation<Void, Never>>.Timer

  /// Creates a middleware whose writers each persist their own batch, in registration order.
  ///
  /// - Parameters:
  ///   - writers: One per `EntityStore`, flushed in this order (leaf entities first).
  ///   - debounce: The quiet time after the last drain before a flush (default 250 ms).
  ///   - maxWait: The longest a drained change waits for a flush (default 1 s).
  ///   - retry: The backoff between retries of a failed flush.
  ///   - loopThreshold: Drains in one flush window beyond which a warning is logged, once.
  ///   - clock: The clock the debounce, `maxWait` and retries read.
  ///   - logger: Receives failures (error), retries and the loop warning (warning).
  ///
  /// An argument out of range does not trap: a negative `debounce` is zero, a `maxWait` shorter
  /// than `debounce` is `debounce`, and each such change, like those `retry` made, is logged as
  /// a warning.
  public init(
    writers: [StateWriter<State>],
    debounce: Duration = .milliseconds(250),
    maxWait: Duration = .seconds(1),
    retry: RetryPolicy = .default,
    loopThreshold: Int = 100,
    clock: any Clock<Duration> = ContinuousClock(),
    logger: Logger = Logger(label: "ReduxKit.Persistence")
  ) {
    self.writers = writers
    self.clock = ClockReader(clock)
    self.backend = nil
    self.logger = logger
    self.schedule = Self.schedule(
      debounce: debounce, maxWait: maxWait, retry: retry, loopThreshold: loopThreshold,
      logger: logger)
  }

  /// Creates a middleware whose every flush is one transaction of `backend`: after a crash the
  /// database holds all of a flush, across all writers, or none of it.
  ///
  /// Writers bound to `backend` (``StateWriter/init(keyPath:backend:batch:drained:)``) hand it their
  /// batches, all in one ``PersistenceBackend/commit(_:)`` per flush; any other writer
  /// persists its own batch first, in registration order, before that commit.
  ///
  /// - Parameters:
  ///   - backend: The database every flush commits to, in one transaction.
  ///   - writers: One per `EntityStore`, flushed in this order (leaf entities first).
  ///   - debounce: The quiet time after the last drain before a flush (default 250 ms).
  ///   - maxWait: The longest a drained change waits for a flush (default 1 s).
  ///   - retry: The backoff between retries of a failed flush.
  ///   - loopThreshold: Drains in one flush window beyond which a warning is logged, once.
  ///   - clock: The clock the debounce, `maxWait` and retries read.
  ///   - logger: Receives failures (error), retries and the loop warning (warning).
  public init(
    backend: some PersistenceBackend,
    writers: [StateWriter<State>],
    debounce: Duration = .milliseconds(250),
    maxWait: Duration = .seconds(1),
    retry: RetryPolicy = .default,
    loopThreshold: Int = 100,
    clock: any Clock<Duration> = ContinuousClock(),
    logger: Logger = Logger(label: "ReduxKit.Persistence")
  ) {
    self.writers = writers
    self.clock = ClockReader(clock)
    self.backend = FlushCommitter(backend)
    self.logger = logger
    self.schedule = Self.schedule(
      debounce: debounce, maxWait: maxWait, retry: retry, loopThreshold: loopThreshold,
      logger: logger)
  }

  /// The schedule for the given timings, out-of-range values adjusted and logged.
  private static func schedule(
    debounce: Duration, maxWait: Duration, retry: RetryPolicy, loopThreshold: Int,
    logger: Logger
  ) -> PersistenceFlushStateMachine<CheckedContinuation<Void, Never>> {
    let adjustedDebounce = max(debounce, .zero)
    let adjustedMaxWait = max(maxWait, adjustedDebounce)
    var adjustments = retry.adjustments
    if debounce < .zero {
      adjustments.append("PersistenceMiddleware: debounce \(debounce) is negative; using 0 seconds")
    }
    if maxWait < adjustedDebounce {
      adjustments.append(
        "PersistenceMiddleware: maxWait \(maxWait) is shorter than debounce; using \(adjustedDebounce)"
      )
    }
    for adjustment in adjustments { logger.warning("\(adjustment)") }
    return PersistenceFlushStateMachine(
      debounce: adjustedDebounce, maxWait: adjustedMaxWait, retry: retry,
      loopThreshold: loopThreshold)
  }

  isolated deinit {
    let pending = writers.reduce(0) { $0 + $1.pendingCount }
    if pending > 0 {
      logger.error(
        "Persistence released with \(pending) unpersisted changes: call shutdown() before releasing it"
      )
    }
    tasks.shutdown()
  }

  // MARK: - Draining

  /// Drains every writer's `EntityStore` and (re)starts the flush timers. Call it after every
  /// reducer call.
  ///
  /// After ``shutdown()`` it drains nothing: the changes stay recorded in the state and an error
  /// is logged.
  ///
  /// - Complexity: O(*w*) when nothing changed, for *w* writers; otherwise O(*w* + *c*), the
  ///   number of changes.
  public func afterReduce(state: inout State) {
    if schedule.isShuttingDown {
      if writers.contains(where: { $0.hasChanges(in: state) }) {
        logger.error(
          "Changes after shutdown are not persisted: \(PersistenceMiddlewareError.shutdown)")
      }
      return
    }
    var drained = false
    for writer in writers where writer.drain(&state) { drained = true }
    guard drained else { return }
    updatePendingCount()
    // NB: a change to an entity whose write was refused replaces that write.
    if !status.rejected.isEmpty { updateRejected() }
    let actions = schedule.drained()
    if let drains = actions.loopWarning {
      logger.warning(
        "\(drains) drains before one flush (threshold \(loopThreshold)): is an action dispatching itself in a loop?"
      )
    }
    if let delay = actions.debounce { startTimer(.debounce, after: delay) }
    if let delay = actions.deadline { startTimer(.deadline, after: delay) }
  }

  private func updatePendingCount() {
    status.pendingCount = writers.reduce(0) { $0 + $1.pendingCount }
  }

  // MARK: - Timers

  private func startTimer(_ timer: Timer, after delay: Duration) {
    let sleep = clock.sleep(for: delay)
    let logger = logger
    tasks.run(id: timer) { [weak self] in
      try await sleep()
      await self?.timerFired()
    } onFailure: { error in
      logger.error("Persistence timer \(timer) failed: \(error)")
    }
  }

  private func cancelTimers() {
    tasks.cancelTask(id: Timer.debounce)
    tasks.cancelTask(id: Timer.deadline)
    tasks.cancelTask(id: Timer.retry)
  }

  private func timerFired() {
    schedule.timerFired()
    cancelTimers()
    let launched = tasks.run { [weak self] in
      await self?.flushInBackground()
    } onFailure: { _ in
    }
    if launched == nil { resume(schedule.launchFailed()) }
  }

  private func flushInBackground() async {
    do {
      try await performFlush()
    } catch {
      // Nobody awaits a timer's flush: performFlush has already logged the failure, recorded it
      // in `status`, kept the changes pending and scheduled the retry.
    }
    resume(schedule.launchedFlushEnded())
  }

  private func resume(_ waiters: [CheckedContinuation<Void, Never>]) {
    for waiter in waiters { waiter.resume() }
  }

  // MARK: - Flushing

  /// Persists everything drained so far, now, and returns when it is persisted.
  ///
  /// A flush already running is waited for first; then one flush persists everything pending.
  ///
  /// - Throws: ``PersistenceMiddlewareError/flushFailed(underlying:pending:)`` when it could not persist
  ///   (the changes stay pending and are retried), ``PersistenceMiddlewareError/shutdown`` after
  ///   ``shutdown()``.
  /// - Complexity: O(*w* + *c*) on the main actor, for *w* writers and *c* pending changes,
  ///   plus the writers' `persist` calls.
  public func flush() async throws(PersistenceMiddlewareError) {
    guard !schedule.isShuttingDown else { throw .shutdown }
    try await performFlush()
  }

  /// Refuses further work, cancels the timers and flushes everything pending.
  ///
  /// - Throws: ``PersistenceMiddlewareError/flushFailed(underlying:pending:)`` when the last flush
  ///   failed; the changes stay pending, and calling `shutdown()` again retries them.
  /// - Complexity: O(*w* + *c*) on the main actor, for *w* writers and *c* pending changes,
  ///   plus the writers' `persist` calls.
  public func shutdown() async throws(PersistenceMiddlewareError) {
    schedule.shutdown()
    status.isShutdown = true
    cancelTimers()
    try await performFlush()
    tasks.shutdown()
  }

  /// Suspends until no flush is running or about to run. Timers still waiting do not count:
  /// advance the clock to fire them.
  public func waitUntilIdle() async {
    while !schedule.isIdle {
      await withCheckedContinuation { schedule.waitForIdle($0) }
    }
  }

  /// One flush at a time: waits for the running one, then persists everything pending.
  private func performFlush() async throws(PersistenceMiddlewareError) {
    while !schedule.beginFlush() {
      await withCheckedContinuation { schedule.waitForFlush($0) }
    }
    defer {
      status.isFlushing = false
      let (next, idle) = schedule.flushEnded()
      next?.resume()
      resume(idle)
    }

    var batches = writers.compactMap { $0.takeBatch() }
    guard !batches.isEmpty else { return }
    // Everything pending is in this flush: the timers have nothing left to wait for.
    schedule.tookBatches()
    cancelTimers()
    status.isFlushing = true
    updatePendingCount()

    var refused: [RejectedWrite] = []
    var committed = 0
    while !batches.isEmpty {
      do {
        try await persist(batches)
        committed += batches.reduce(0) { $0 + $1.count }
        break
      } catch let refusal as Refusal {
        // NB: nothing was committed; the refused writes are set aside and the rest is
        // committed at once: one write the database can never store stops nothing else.
        refused += refusal.writes
        logger.error(
          "the database refused \(refusal.writes.count) write(s) for good; set aside, the rest is flushed",
          metadata: [
            "rejected": .array(refusal.writes.map { .string($0.description) })
          ])
        batches = writers.compactMap { $0.takeBatch() }
      } catch {
        status.lastError = error
        updateRejected()
        updatePendingCount()
        let outcome = schedule.flushFailed()
        status.consecutiveFailures = schedule.consecutiveFailures
        let failure = PersistenceMiddlewareError.flushFailed(
          underlying: error, pending: status.pendingCount)
        switch outcome {
        case .retry(let delay):
          logger.error("\(failure); retry \(status.consecutiveFailures) in \(delay)")
          cancelTimers()
          startTimer(.retry, after: delay)
        case .waitForShutdownRetry:
          logger.error("\(failure); shutting down, call shutdown() again to retry")
        }
        throw failure
      }
    }
    schedule.flushCommitted()
    status.consecutiveFailures = 0
    status.lastError = nil
    updateRejected()
    updatePendingCount()
    if committed > 0 {
      status.lastFlush = FlushReport(
        number: (status.lastFlush?.number ?? 0) + 1, changes: committed,
        committedAt: clock.now())
    }
    if !refused.isEmpty { throw .rejected(refused) }
  }

  // MARK: - Rejected writes

  private func updateRejected() {
    guard !status.rejected.isEmpty || writers.contains(where: { !$0.rejected.isEmpty }) else {
      return
    }
    status.rejected = writers.flatMap(\.rejected)
  }

  /// Puts writes the database refused back into the next flush (the app keeps them for later:
  /// after fixing what the database refused, say).
  ///
  /// - Parameter writes: The writes to retry (from ``PersistenceStatus/rejected``); all of them
  ///   when `nil`.
  /// - Complexity: O(*r* + *p*), the writes set aside and the changes pending.
  public func retryRejected(_ writes: [RejectedWrite]? = nil) {
    let ids = writes.map { Set($0.map(\.id)) }
    var retried = false
    for writer in writers where writer.retryRejected(ids) { retried = true }
    updateRejected()
    guard retried else { return }
    updatePendingCount()
    let actions = schedule.drained()
    if let delay = actions.debounce { startTimer(.debounce, after: delay) }
    if let delay = actions.deadline { startTimer(.deadline, after: delay) }
  }

  /// Forgets writes the database refused: they are never written. The state keeps its values;
  /// change or remove those entities to bring the state back in line with the database.
  ///
  /// - Parameter writes: The writes to drop (from ``PersistenceStatus/rejected``); all of them
  ///   when `nil`.
  /// - Complexity: O(*r*), the writes set aside.
  public func discardRejected(_ writes: [RejectedWrite]? = nil) {
    let ids = writes.map { Set($0.map(\.id)) }
    for writer in writers { writer.discardRejected(ids) }
    updateRejected()
  }

  /// Persists the batches in writer order. A batch that did not persist goes back to its
  /// writer: with a backend all of them, without one the failed batch and those after it.
  private func persist(_ batches: [WriterBatch]) async throws {
    if let backend {
      do {
        try await backend.commit(batches)
      } catch let refusal as Refusal {
        for (offset, batch) in batches.enumerated() {
          batch.setAside(refusal.writes.filter { $0.batch == offset })
        }
        throw refusal
      } catch {
        for batch in batches { batch.restore() }
        throw error
      }
      return
    }
    for (index, batch) in batches.enumerated() {
      do {
        try await batch.persist()
      } catch {
        for failed in batches[index...] { failed.restore() }
        throw error
      }
    }
  }
}

/// A backend's ``RejectedWrites``, each write's `batch` the offset of its writer's batch in the
/// flush.
private struct Refusal: Error {
  let writes: [RejectedWrite]
}

/// A middleware's backend, its type erased: commits the batches bound to it in one
/// transaction, after persisting the others on their own.
private struct FlushCommitter: Sendable {
  private let run: @Sendable ([WriterBatch]) async throws -> Void

  init<Backend: PersistenceBackend>(_ backend: Backend) {
    run = { batches in
      var joint: [Backend.Batch] = []
      var writerBatch: [Int] = []
      joint.reserveCapacity(batches.count)
      for (offset, batch) in batches.enumerated() {
        if let staged = batch.staged?.batch(for: backend) {
          joint.append(staged)
          writerBatch.append(offset)
        } else {
          try await batch.persist()
        }
      }
      guard !joint.isEmpty else { return }
      do {
        try await backend.commit(joint)
      } catch let refused as RejectedWrites {
        throw Refusal(
          writes: refused.writes.compactMap { write in
            guard writerBatch.indices.contains(write.batch) else { return nil }
            return RejectedWrite(
              batch: writerBatch[write.batch], table: write.table, id: write.id,
              isDeletion: write.isDeletion, reason: write.reason)
          })
      }
    }
  }

  func commit(_ batches: [WriterBatch]) async throws {
    try await run(batches)
  }
}
