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
  @ObservationIgnored public let debounce: Duration
  /// The longest a drained change waits for a flush while flushes succeed.
  @ObservationIgnored public let maxWait: Duration
  /// The backoff between retries of a failed flush.
  @ObservationIgnored public let retry: RetryPolicy
  /// Drains in one flush window beyond which a possible dispatch loop is logged, once.
  @ObservationIgnored public let loopThreshold: Int

  @ObservationIgnored private let writers: [StateWriter<State>]
  @ObservationIgnored private let clock: ClockReader
  @ObservationIgnored private let transaction: FlushTransaction?
  @ObservationIgnored let logger: Logger
  @ObservationIgnored private let tasks = TaskManager()

  @ObservationIgnored private var drainsInWindow = 0
  @ObservationIgnored private var warnedInWindow = false
  @ObservationIgnored private var deadlineArmed = false
  @ObservationIgnored private var retryArmed = false
  @ObservationIgnored private var isShuttingDown = false
  @ObservationIgnored private var flushing = false
  @ObservationIgnored private var flushWaiters: [CheckedContinuation<Void, Never>] = []
  @ObservationIgnored private var launchedFlushes = 0
  @ObservationIgnored private var idleWaiters: [CheckedContinuation<Void, Never>] = []

  private enum Timer: Hashable, Sendable {
    case debounce, deadline, retry
  }

  /// Creates the middleware.
  ///
  /// - Parameters:
  ///   - writers: One per `EntityStore`, flushed in this order (leaf entities first).
  ///   - debounce: The quiet time after the last drain before a flush (default 250 ms).
  ///   - maxWait: The longest a drained change waits for a flush (default 1 s).
  ///   - retry: The backoff between retries of a failed flush.
  ///   - loopThreshold: Drains in one flush window beyond which a warning is logged, once.
  ///   - clock: The clock the debounce, `maxWait` and retries read.
  ///   - transaction: Wraps each flush, so a database can commit all writers atomically.
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
    transaction: FlushTransaction? = nil,
    logger: Logger = Logger(label: "ReduxKit.Persistence")
  ) {
    self.writers = writers
    self.debounce = max(debounce, .zero)
    self.maxWait = max(maxWait, self.debounce)
    self.retry = retry
    self.loopThreshold = loopThreshold
    self.clock = ClockReader(clock)
    self.transaction = transaction
    self.logger = logger
    var adjustments = retry.adjustments
    if debounce < .zero {
      adjustments.append("PersistenceMiddleware: debounce \(debounce) is negative; using 0 seconds")
    }
    if maxWait < self.debounce {
      adjustments.append(
        "PersistenceMiddleware: maxWait \(maxWait) is shorter than debounce; using \(self.debounce)"
      )
    }
    for adjustment in adjustments { logger.warning("\(adjustment)") }
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
    if isShuttingDown {
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
    countDrain()
    scheduleFlush()
  }

  private func countDrain() {
    drainsInWindow += 1
    guard drainsInWindow > loopThreshold, !warnedInWindow else { return }
    warnedInWindow = true
    logger.warning(
      "\(drainsInWindow) drains before one flush (threshold \(loopThreshold)): is an action dispatching itself in a loop?"
    )
  }

  private func updatePendingCount() {
    status.pendingCount = writers.reduce(0) { $0 + $1.pendingCount }
  }

  // MARK: - Timers

  private func scheduleFlush() {
    // NB: while a retry waits out its backoff, it flushes everything pending when it fires.
    guard !retryArmed else { return }
    startTimer(.debounce, after: debounce)
    if !deadlineArmed {
      deadlineArmed = true
      startTimer(.deadline, after: maxWait)
    }
  }

  private func scheduleRetry() {
    cancelTimers()
    retryArmed = true
    startTimer(.retry, after: retry.delay(beforeRetry: status.consecutiveFailures))
  }

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
    deadlineArmed = false
    retryArmed = false
  }

  private func timerFired() {
    cancelTimers()
    launchedFlushes += 1
    let launched = tasks.run { [weak self] in
      await self?.flushInBackground()
    } onFailure: { _ in
    }
    if launched == nil { launchedFlushes -= 1 }
  }

  private func flushInBackground() async {
    do {
      try await performFlush()
    } catch {
      // Nobody awaits a timer's flush: performFlush has already logged the failure, recorded it
      // in `status`, kept the changes pending and scheduled the retry.
    }
    launchedFlushes -= 1
    resumeIdleWaiters()
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
    guard !isShuttingDown else { throw .shutdown }
    try await performFlush()
  }

  /// Refuses further work, cancels the timers and flushes everything pending.
  ///
  /// - Throws: ``PersistenceMiddlewareError/flushFailed(underlying:pending:)`` when the last flush
  ///   failed; the changes stay pending, and calling `shutdown()` again retries them.
  /// - Complexity: O(*w* + *c*) on the main actor, for *w* writers and *c* pending changes,
  ///   plus the writers' `persist` calls.
  public func shutdown() async throws(PersistenceMiddlewareError) {
    isShuttingDown = true
    status.isShutdown = true
    cancelTimers()
    try await performFlush()
    tasks.shutdown()
  }

  /// Suspends until no flush is running or about to run. Timers still waiting do not count:
  /// advance the clock to fire them.
  public func waitUntilIdle() async {
    while flushing || launchedFlushes > 0 {
      await withCheckedContinuation { idleWaiters.append($0) }
    }
  }

  private func resumeIdleWaiters() {
    guard !flushing, launchedFlushes == 0 else { return }
    let waiters = idleWaiters
    idleWaiters = []
    for waiter in waiters { waiter.resume() }
  }

  /// One flush at a time: waits for the running one, then persists everything pending.
  private func performFlush() async throws(PersistenceMiddlewareError) {
    while flushing {
      await withCheckedContinuation { flushWaiters.append($0) }
    }
    flushing = true
    defer {
      flushing = false
      status.isFlushing = false
      if !flushWaiters.isEmpty { flushWaiters.removeFirst().resume() }
      resumeIdleWaiters()
    }

    let batches = writers.compactMap { $0.takeBatch() }
    guard !batches.isEmpty else { return }
    // Everything pending is in this flush: the timers have nothing left to wait for.
    cancelTimers()
    drainsInWindow = 0
    warnedInWindow = false
    status.isFlushing = true
    updatePendingCount()

    do {
      try await persist(batches)
    } catch {
      status.consecutiveFailures += 1
      status.lastError = error
      updatePendingCount()
      let failure = PersistenceMiddlewareError.flushFailed(
        underlying: error, pending: status.pendingCount)
      if isShuttingDown {
        logger.error("\(failure); shutting down, call shutdown() again to retry")
      } else {
        let delay = retry.delay(beforeRetry: status.consecutiveFailures)
        logger.error("\(failure); retry \(status.consecutiveFailures) in \(delay)")
        scheduleRetry()
      }
      throw failure
    }
    status.consecutiveFailures = 0
    status.lastError = nil
    status.lastFlush = FlushReport(
      number: (status.lastFlush?.number ?? 0) + 1,
      changes: batches.reduce(0) { $0 + $1.count },
      committedAt: clock.now())
  }

  /// Persists the batches in writer order. A batch that did not persist goes back to its
  /// writer: with a transaction all of them, without one the failed batch and those after it.
  private func persist(_ batches: [WriterBatch]) async throws {
    if let transaction {
      do {
        try await transaction.run {
          for batch in batches { try await batch.persist() }
        }
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
