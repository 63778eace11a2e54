import Synchronization

/// The one task runtime of ReduxKit: runs async work, keyed by an optional id, and cancels it.
///
/// - A task started under the id of a live task cancels and replaces that task; the new one is
///   tracked until it ends, whatever the old one does while it unwinds.
/// - A task that ends by throwing `CancellationError` after being cancelled is not a failure;
///   any other error goes to the task's `onFailure`.
/// - ``shutdown()`` cancels everything and refuses new tasks; stores call it when they go away.
/// - ``run(id:policy:priority:isolation:operation:onFailure:onRefusal:)`` admits tasks under an
///   ``AdmissionPolicy`` (limit, latest, debounce, throttle) timed on the manager's clock.
///
/// ```swift
/// let tasks = TaskManager()
/// tasks.run(id: "search") {
///   try await search(query)
/// } onFailure: { error in
///   log(error)
/// }
/// tasks.cancelTask(id: "search")
/// ```
public final class TaskManager: Sendable {
  typealias Token = UInt64

  let book = Mutex(TaskBook())
  /// The clock that times the policies' deadlines.
  let clock: ClockReader

  /// Creates an empty task manager.
  ///
  /// - Parameter clock: The clock that times ``AdmissionPolicy/debounce(_:maxWait:)`` and
  ///   ``AdmissionPolicy/throttle(_:leading:trailing:)``; tests inject a `ManualClock`.
  public init(clock: some Clock<Duration> = ContinuousClock()) {
    self.clock = ClockReader(clock)
  }

  /// Creates an empty task manager whose policies read `clock`, a reader shared with other
  /// parts (a store's dispatches, a view model's timers).
  ///
  /// - Parameter clock: The reader of the clock that times the policies.
  public init(clock: ClockReader) {
    self.clock = clock
  }

  /// The number of tasks whose bodies have not ended yet, cancelled ones included (and the
  /// timers that release tasks a policy holds).
  public var runningTaskCount: Int {
    book.withLock { $0.registry.runningCount }
  }

  /// Whether a task with this id is running and has not been cancelled or replaced.
  public func isTaskRunning(id: some TaskID) -> Bool {
    book.withLock { $0.registry.isRunning(key: TaskKey(id)) }
  }

  /// Whether ``shutdown()`` was called.
  public var isShutdown: Bool {
    book.withLock { $0.registry.isShutdown }
  }

  /// Runs `operation` in a new task that inherits the caller's actor.
  ///
  /// - Parameters:
  ///   - id: An id to cancel the task by. A live task with the same id is cancelled and
  ///     replaced. `nil` runs an anonymous task, cancelled only by ``cancelAllTasks()``.
  ///   - priority: The task's priority.
  ///   - isolation: The actor the task runs on; leave the default, the caller's actor.
  ///   - operation: The work. It runs on the caller's actor.
  ///   - onFailure: Receives any error `operation` throws, except the `CancellationError` of a
  ///     cancelled task. It runs in the task, on the caller's actor.
  /// - Returns: The task, or `nil` if the manager is shut down (the operation does not run).
  /// - Complexity: Amortized O(1).
  @discardableResult
  public func run(
    id: (any TaskID)? = nil,
    priority: TaskPriority? = nil,
    isolation: isolated (any Actor)? = #isolation,
    operation: sending @escaping () async throws -> Void,
    onFailure: sending @escaping (any Error) async -> Void
  ) -> Task<Void, Never>? {
    let work = TaskWork(operation: operation, onFailure: onFailure, onRefusal: nil)
    return start(work, key: id.map(TaskKey.init), priority: priority, isolation: isolation).task
  }

  /// Cancels the live task with this id, if any, and a task a policy holds under it (its
  /// `onRefusal` receives ``TaskRefusal/cancelled``).
  public func cancelTask(id: some TaskID) {
    let key = TaskKey(id)
    let (running, withdrawn) = book.withLock { book in
      (book.registry.cancel(key: key), book.withdraw(key))
    }
    for task in running { task.cancel() }
    guard let withdrawn else { return }
    for timer in withdrawn.timers { timer.cancel() }
    refuse(withdrawn.held, .cancelled)
  }

  /// Cancels every running task, and refuses the tasks policies hold
  /// (``TaskRefusal/cancelled``). New tasks may still start.
  ///
  /// - Complexity: O(*n*), where *n* is the number of tasks.
  public func cancelAllTasks() {
    let (running, withdrawn) = book.withLock { book in
      (book.registry.cancelAll(), book.withdrawAll())
    }
    for task in running { task.cancel() }
    for held in withdrawn { refuse(held, .cancelled) }
  }

  /// Cancels every running task and refuses new ones: ``run(id:priority:isolation:operation:onFailure:)``
  /// returns `nil` from now on, and the tasks policies hold are refused
  /// (``TaskRefusal/shutdown``).
  ///
  /// - Complexity: O(*n*), where *n* is the number of tasks.
  public func shutdown() {
    let (running, withdrawn) = book.withLock { book in
      (book.registry.shutdown(), book.withdrawAll())
    }
    for task in running { task.cancel() }
    for held in withdrawn { refuse(held, .shutdown) }
  }

  /// Suspends until no task is running (cancelled tasks must finish unwinding too).
  public func waitUntilIdle() async {
    await withCheckedContinuation { continuation in
      let registered = book.withLock { $0.registry.waitForIdle(continuation) }
      if !registered { continuation.resume() }
    }
  }

  /// Starts `work` on the caller's actor, under `key`.
  ///
  /// - Parameter limit: `nil`: the task replaces the live tasks with its id; a number: it
  ///   shares the id with at most `limit - 1` others, or is refused.
  func start(
    _ work: TaskWork, key: TaskKey?, limit: UInt? = nil, priority: TaskPriority?,
    isolation: isolated (any Actor)?
  ) -> TaskAdmission {
    let token: Token
    switch book.withLock({ $0.registry.reserve(key: key, limit: limit) }) {
    case .refused:
      return refuse(work, .shutdown, isolation: isolation)
    case .limited(let limit):
      return refuse(work, .limited(limit), isolation: isolation)
    case .start(let reserved, let replaced):
      for task in replaced { task.cancel() }
      token = reserved
    }
    let task = Task(priority: priority) {
      _ = isolation  // NB: capturing the isolated parameter makes the task run on that actor.
      await work.execute()
      self.finish(token: token)
    }
    attach(task, token: token)
    return .started(task)
  }

  /// Tells `work`'s `onRefusal`, in a task on `isolation`, that it will never run. The task
  /// counts as running, so ``waitUntilIdle()`` waits for the refusal to be told too (unless the
  /// manager is shut down).
  ///
  /// - Returns: The refusal, as the caller of `run` receives it.
  @discardableResult
  func refuse(_ work: TaskWork, _ refusal: TaskRefusal, isolation: (any Actor)?) -> TaskAdmission {
    guard work.isRefusalObserved else { return .refused(refusal) }
    guard case .start(let token, _) = book.withLock({ $0.registry.reserve(key: nil) }) else {
      Task { await TaskWork.deliver(refusal, to: work, on: isolation) }
      return .refused(refusal)
    }
    let task = Task {
      await TaskWork.deliver(refusal, to: work, on: isolation)
      self.finish(token: token)
    }
    attach(task, token: token)
    return .refused(refusal)
  }

  func refuse(_ held: TaskBook.Held, _ refusal: TaskRefusal) {
    refuse(held.work, refusal, isolation: held.isolation)
  }

  func attach(_ task: Task<Void, Never>, token: Token) {
    if let cancelled = book.withLock({ $0.registry.attach(task, token: token) }) {
      cancelled.cancel()
    }
  }

  func finish(token: Token) {
    for waiter in book.withLock({ $0.registry.finish(token: token) }) { waiter.resume() }
  }
}
