/// What a ``TaskManager`` keeps under its one lock: the running tasks, and the admission of the
/// tasks timed policies hold.
struct TaskBook {
  /// A task a policy holds until its deadline, with where and how it will run.
  struct Held: Sendable {
    let work: TaskWork
    let priority: TaskPriority?
    let isolation: (any Actor)?
  }

  var registry = TaskRegistryStateMachine<
    TaskKey, Task<Void, Never>, CheckedContinuation<Void, Never>
  >()
  /// `debounce` and `throttle`; `limit` and `latest` are the registry's own rules.
  var admission = AdmissionStateMachine<TaskKey, UInt64>()
  var held: [UInt64: Held] = [:]
  /// The policy each id with a slot in the admission machine was last offered under.
  var policies: [TaskKey: AdmissionPolicy] = [:]
  private var nextTicket: UInt64 = 0

  mutating func issueTicket() -> UInt64 {
    defer { nextTicket += 1 }
    return nextTicket
  }

  /// Forgets an id whose slot the admission machine dropped.
  mutating func forgetIfIdle(_ key: TaskKey) {
    if admission.slots[key] == nil { policies[key] = nil }
  }

  /// The id of the timer that releases the task a policy holds under `key`.
  static func timerKey(_ key: TaskKey) -> TaskKey {
    TaskKey(PolicyTimer(key: key))
  }

  /// Withdraws the task held under `key`, if any, with the timer that would have released it
  /// when nothing is left for the timer to do.
  ///
  /// - Returns: The task withdrawn, and the timers to cancel.
  mutating func withdraw(_ key: TaskKey) -> (held: Held, timers: [Task<Void, Never>])? {
    guard let ticket = admission.withdraw(key), let withdrawn = held.removeValue(forKey: ticket)
    else { return nil }
    guard admission.slots[key] == nil else { return (withdrawn, []) }
    policies[key] = nil
    return (withdrawn, registry.cancel(key: Self.timerKey(key)))
  }

  /// Withdraws every held task, oldest first, and forgets every policy's state.
  mutating func withdrawAll() -> [Held] {
    let tickets = admission.shutdown().sorted()
    defer {
      held = [:]
      policies = [:]
    }
    return tickets.compactMap { held[$0] }
  }
}

/// The id of the timer that releases the task a policy holds under `key`; a type of its own, so
/// that no task id can replace it.
private struct PolicyTimer: Hashable, Sendable {
  let key: TaskKey
}
