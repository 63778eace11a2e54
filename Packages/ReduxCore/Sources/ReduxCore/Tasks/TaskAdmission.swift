/// What became of a task run under an ``AdmissionPolicy``
/// (``TaskManager/run(id:policy:priority:isolation:operation:onFailure:onRefusal:)``).
public enum TaskAdmission: Sendable {
  /// The task started.
  case started(Task<Void, Never>)
  /// The policy holds the task until its deadline (`debounce`, or `throttle` within an
  /// interval). It starts then, unless it is refused first: its `onRefusal` says why.
  case held
  /// The task will never start; its `onRefusal` was told too.
  case refused(TaskRefusal)

  /// The task, if it started.
  public var task: Task<Void, Never>? {
    guard case .started(let task) = self else { return nil }
    return task
  }
}

/// Why a task run under an ``AdmissionPolicy`` never started.
public enum TaskRefusal: Error, Sendable, Hashable, CustomStringConvertible {
  /// A newer task with the same id took its place while the policy held it.
  case superseded
  /// `limit(n)`: `n` tasks with its id were running.
  case limited(UInt)
  /// `throttle` without `trailing`: a task with its id started less than `interval` ago.
  case throttled(interval: Duration)
  /// Its id was cancelled (``TaskManager/cancelTask(id:)``, ``TaskManager/cancelAllTasks()``)
  /// while the policy held it.
  case cancelled
  /// The task manager is shut down.
  case shutdown

  public var description: String {
    switch self {
    case .superseded: "superseded by a newer task with its id"
    case .limited(let limit): "\(limit) task(s) with its id already running"
    case .throttled(let interval): "throttled: one with its id started less than \(interval) ago"
    case .cancelled: "cancelled before it started"
    case .shutdown: "shut down"
    }
  }
}
