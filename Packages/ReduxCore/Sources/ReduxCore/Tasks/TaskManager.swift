import Synchronization

/// The one task runtime of ReduxKit: runs async work, keyed by an optional id, and cancels it.
///
/// - A task started under the id of a live task cancels and replaces that task; the new one is
///   tracked until it ends, whatever the old one does while it unwinds.
/// - A task that ends by throwing `CancellationError` after being cancelled is not a failure;
///   any other error goes to the task's `onFailure`.
/// - ``shutdown()`` cancels everything and refuses new tasks; stores call it when they go away.
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
  private typealias Machine = TaskRegistryStateMachine<
    TaskKey, Task<Void, Never>, CheckedContinuation<Void, Never>
  >

  private let machine = Mutex(Machine())

  /// Creates an empty task manager.
  public init() {}

  /// The number of tasks whose bodies have not ended yet, cancelled ones included.
  public var runningTaskCount: Int {
    machine.withLock { $0.runningCount }
  }

  /// Whether a task with this id is running and has not been cancelled or replaced.
  public func isTaskRunning(id: some TaskID) -> Bool {
    machine.withLock { $0.isRunning(key: TaskKey(id)) }
  }

  /// Whether ``shutdown()`` was called.
  public var isShutdown: Bool {
    machine.withLock { $0.isShutdown }
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
    let key = id.map(TaskKey.init)
    let token: Machine.Token
    switch machine.withLock({ $0.reserve(key: key) }) {
    case .refused:
      return nil
    case .start(let reserved, let replaced):
      replaced?.cancel()
      token = reserved
    }
    // NB: the work is handed over through a box the task empties, so that everything it
    // captured is released before `finish` tells waiters the task is over.
    let work = Mutex<Work?>(Work(operation: operation, onFailure: onFailure))
    let task = Task(priority: priority) {
      _ = isolation  // NB: capturing the isolated parameter makes the task run on that actor.
      if let taken = work.withLock({ $0.take() }) {
        await taken.execute()
      }
      self.finish(token: token)
    }
    if let cancelled = machine.withLock({ $0.attach(task, token: token) }) {
      cancelled.cancel()
    }
    return task
  }

  /// Cancels the live task with this id, if any.
  public func cancelTask(id: some TaskID) {
    machine.withLock { $0.cancel(key: TaskKey(id)) }?.cancel()
  }

  /// Cancels every running task. New tasks may still start.
  ///
  /// - Complexity: O(*n*), where *n* is the number of tasks.
  public func cancelAllTasks() {
    for task in machine.withLock({ $0.cancelAll() }) { task.cancel() }
  }

  /// Cancels every running task and refuses new ones: ``run(id:priority:isolation:operation:onFailure:)``
  /// returns `nil` from now on.
  ///
  /// - Complexity: O(*n*), where *n* is the number of tasks.
  public func shutdown() {
    for task in machine.withLock({ $0.shutdown() }) { task.cancel() }
  }

  /// Suspends until no task is running (cancelled tasks must finish unwinding too).
  public func waitUntilIdle() async {
    await withCheckedContinuation { continuation in
      let registered = machine.withLock { $0.waitForIdle(continuation) }
      if !registered { continuation.resume() }
    }
  }

  /// One task's operation and failure handler, run once.
  private struct Work {
    let operation: () async throws -> Void
    let onFailure: (any Error) async -> Void

    consuming func execute() async {
      do {
        try await operation()
      } catch is CancellationError where Task.isCancelled {
        // Cancellation is how tasks are stopped, not a failure.
      } catch {
        await onFailure(error)
      }
    }
  }

  private func finish(token: Machine.Token) {
    for waiter in machine.withLock({ $0.finish(token: token) }) { waiter.resume() }
  }
}
