/// When ``PersistenceMiddleware`` flushes, as a pure state machine: the debounce, `maxWait`
/// and retry timers, one flush at a time, the callers waiting for a flush or for idle, the
/// loop warning, and shutdown.
///
/// It performs no side effects: every event returns what its owner must do (start or cancel
/// timers, launch a flush, resume waiters, log), so each interleaving — a drain during a
/// retry's backoff, `flush()` during a timer's flush, `shutdown()` during a failing flush — is
/// a plain synchronous test. `Waiter` is what the owner suspends callers with (a
/// continuation).
struct PersistenceFlushStateMachine<Waiter> {
  /// The middleware's timers, one task each, by id.
  enum Timer: Hashable, Sendable {
    /// Fires `debounce` after the last drain; restarted by every drain.
    case debounce
    /// Fires `maxWait` after the first drain not yet flushed; never restarted by a drain.
    case deadline
    /// Fires after a failed flush's backoff; drains wait for it.
    case retry
  }

  /// What the owner does after a drain.
  struct DrainActions: Equatable {
    /// (Re)start the debounce timer with this delay.
    var debounce: Duration?
    /// Start the deadline timer with this delay.
    var deadline: Duration?
    /// Warn, once per flush window, that this many drains happened without a flush.
    var loopWarning: Int?
  }

  /// What the owner does after a failed flush.
  enum AfterFailure: Equatable {
    /// Cancel the timers and start the retry timer with this delay.
    case retry(after: Duration)
    /// Nothing: the middleware is shutting down, and a second `shutdown()` retries.
    case waitForShutdownRetry
  }

  let debounce: Duration
  let maxWait: Duration
  let retry: RetryPolicy
  let loopThreshold: Int

  /// Whether ``shutdown()`` happened: drains are refused and no timer starts any more.
  private(set) var isShuttingDown = false
  /// Whether a flush holds the database (one at a time).
  private(set) var isFlushing = false
  /// Failed flushes since the last one that committed.
  private(set) var consecutiveFailures = 0
  /// Flushes launched by a timer and not yet ended.
  private(set) var launchedFlushes = 0
  private(set) var deadlineArmed = false
  private(set) var retryArmed = false
  private var drainsInWindow = 0
  private var warnedInWindow = false
  private var flushWaiters: [Waiter] = []
  private var idleWaiters: [Waiter] = []

  init(debounce: Duration, maxWait: Duration, retry: RetryPolicy, loopThreshold: Int) {
    self.debounce = debounce
    self.maxWait = maxWait
    self.retry = retry
    self.loopThreshold = loopThreshold
  }

  /// Whether no flush is running or launched (timers still waiting do not count).
  var isIdle: Bool { !isFlushing && launchedFlushes == 0 }

  // MARK: - Events

  /// Changes were drained into the writers.
  ///
  /// NB: while a retry waits out its backoff, no timer starts: the retry flushes everything
  /// pending when it fires.
  mutating func drained() -> DrainActions {
    var actions = DrainActions()
    drainsInWindow += 1
    if drainsInWindow > loopThreshold, !warnedInWindow {
      warnedInWindow = true
      actions.loopWarning = drainsInWindow
    }
    guard !isShuttingDown, !retryArmed else { return actions }
    actions.debounce = debounce
    if !deadlineArmed {
      deadlineArmed = true
      actions.deadline = maxWait
    }
    return actions
  }

  /// A timer fired: cancel the timers and launch a flush (then report ``launchFailed()`` if it
  /// could not start, and ``launchedFlushEnded()`` when it ends).
  mutating func timerFired() {
    disarmTimers()
    launchedFlushes += 1
  }

  /// A flush launched by a timer could not start (the middleware's tasks are shut down).
  /// - Returns: The idle waiters to resume.
  mutating func launchFailed() -> [Waiter] {
    launchedFlushes -= 1
    return takeIdleWaitersIfIdle()
  }

  /// A flush launched by a timer ended.
  /// - Returns: The idle waiters to resume.
  mutating func launchedFlushEnded() -> [Waiter] {
    launchedFlushes -= 1
    return takeIdleWaitersIfIdle()
  }

  /// A caller wants to flush (`flush()`, `shutdown()`, a timer's flush).
  /// - Returns: `true` when the caller now owns the flush; `false` when one is running, and
  ///   the caller must wait (``waitForFlush(_:)``) and ask again.
  mutating func beginFlush() -> Bool {
    guard !isFlushing else { return false }
    isFlushing = true
    return true
  }

  /// Parks a caller until the running flush ends.
  mutating func waitForFlush(_ waiter: Waiter) {
    flushWaiters.append(waiter)
  }

  /// The flush took every writer's pending batch (at least one): the timers have nothing left
  /// to wait for, and the loop warning's window starts again. Cancel the timers.
  mutating func tookBatches() {
    disarmTimers()
    drainsInWindow = 0
    warnedInWindow = false
  }

  /// The flush committed.
  mutating func flushCommitted() {
    consecutiveFailures = 0
  }

  /// The flush failed: its batches are pending again.
  mutating func flushFailed() -> AfterFailure {
    consecutiveFailures += 1
    guard !isShuttingDown else { return .waitForShutdownRetry }
    disarmTimers()
    retryArmed = true
    return .retry(after: retry.delay(beforeRetry: consecutiveFailures))
  }

  /// The flush the caller owned ended (with or without batches, committed or not).
  /// - Returns: The next caller waiting to flush, and the idle waiters to resume.
  mutating func flushEnded() -> (nextFlush: Waiter?, idle: [Waiter]) {
    isFlushing = false
    let next = flushWaiters.isEmpty ? nil : flushWaiters.removeFirst()
    return (next, takeIdleWaitersIfIdle())
  }

  /// `shutdown()` was called: refuse further drains and cancel the timers; the caller then
  /// flushes.
  mutating func shutdown() {
    isShuttingDown = true
    disarmTimers()
  }

  /// Parks a caller of `waitUntilIdle()` until ``isIdle``.
  mutating func waitForIdle(_ waiter: Waiter) {
    idleWaiters.append(waiter)
  }

  // MARK: - Helpers

  private mutating func disarmTimers() {
    deadlineArmed = false
    retryArmed = false
  }

  private mutating func takeIdleWaitersIfIdle() -> [Waiter] {
    guard isIdle, !idleWaiters.isEmpty else { return [] }
    defer { idleWaiters = [] }
    return idleWaiters
  }
}
