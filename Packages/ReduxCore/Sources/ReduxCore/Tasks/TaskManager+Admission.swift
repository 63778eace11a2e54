import Synchronization

extension TaskManager {
  /// Runs `operation` in a new task on the caller's actor, when `policy` admits it.
  ///
  /// - ``AdmissionPolicy/latest``: starts at once, cancelling and replacing a live task with
  ///   the same id (as ``run(id:priority:isolation:operation:onFailure:)`` does).
  /// - ``AdmissionPolicy/limit(_:)``: starts at once beside the live tasks with the same id,
  ///   unless `n` of them run; then it is refused.
  /// - ``AdmissionPolicy/debounce(_:maxWait:)`` and ``AdmissionPolicy/throttle(_:leading:trailing:)``:
  ///   held until the policy's deadline on the manager's clock (a newer one with the same id
  ///   supersedes the one held); when it starts, it replaces a live task with the same id, so
  ///   the latest search cancels the stale one.
  ///
  /// ```swift
  /// tasks.run(id: "search", policy: .debounce(.milliseconds(300), maxWait: .seconds(1))) {
  ///   results = try await api.search(text)
  /// } onFailure: { error in
  ///   log(error)
  /// } onRefusal: { refusal in
  ///   // .superseded: a newer search took its place.
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - id: The id the policy counts by; the task is cancelled by it too.
  ///   - policy: How tasks with this id are admitted.
  ///   - priority: The task's priority.
  ///   - isolation: The actor the task runs on; leave the default, the caller's actor.
  ///   - operation: The work. It runs on the caller's actor.
  ///   - onFailure: Receives any error `operation` throws, except the `CancellationError` of a
  ///     cancelled task. It runs in the task, on the caller's actor.
  ///   - onRefusal: Told, on the caller's actor, why the operation will never run: superseded
  ///     while held, refused by the policy, cancelled while held, or the manager shut down.
  /// - Returns: Whether the task started, is held, or was refused.
  /// - Complexity: Amortized O(1); O(*n*) for `limit(n)`.
  @discardableResult
  public func run(
    id: some TaskID,
    policy: AdmissionPolicy,
    priority: TaskPriority? = nil,
    isolation: isolated (any Actor)? = #isolation,
    operation: sending @escaping () async throws -> Void,
    onFailure: sending @escaping (any Error) async -> Void,
    onRefusal: sending @escaping (TaskRefusal) async -> Void
  ) -> TaskAdmission {
    let key = TaskKey(id)
    let work = TaskWork(operation: operation, onFailure: onFailure, onRefusal: onRefusal)
    switch policy {
    case .latest:
      return start(work, key: key, priority: priority, isolation: isolation)
    case .limit(let limit):
      return start(work, key: key, limit: limit, priority: priority, isolation: isolation)
    case .debounce, .throttle:
      let held = TaskBook.Held(work: work, priority: priority, isolation: isolation)
      return offer(held, key: key, policy: policy, isolation: isolation)
    }
  }

  /// Offers a task to a timed policy: it starts now, is held, or is refused.
  private func offer(
    _ held: TaskBook.Held, key: TaskKey, policy: AdmissionPolicy,
    isolation: isolated (any Actor)?
  ) -> TaskAdmission {
    let now = clock.now()
    var superseded: TaskBook.Held?
    let decision = book.withLock { book -> AdmissionStateMachine<TaskKey, UInt64>.Decision? in
      guard !book.registry.isShutdown else { return nil }
      let ticket = book.issueTicket()
      book.policies[key] = policy
      let decision = book.admission.offer(ticket, key: key, policy: policy, now: now)
      superseded = decision.superseded.flatMap { book.held.removeValue(forKey: $0) }
      if decision.refused != nil {
        book.forgetIfIdle(key)
      } else if decision.admitted != ticket {
        book.held[ticket] = held
      }
      return decision
    }
    if let superseded { refuse(superseded, .superseded) }
    guard let decision else { return refuse(held.work, .shutdown, isolation: isolation) }
    if let armAt = decision.armAt { arm(key, at: armAt) }
    switch decision.refused {
    case .limited(let limit):
      return refuse(held.work, .limited(limit), isolation: isolation)
    case .throttled(let interval):
      return refuse(held.work, .throttled(interval: interval), isolation: isolation)
    case nil:
      guard decision.admitted != nil else { return .held }
      return start(held.work, key: key, priority: held.priority, isolation: isolation)
    }
  }

  /// Arms the timer of `key` for `deadline` (replacing an armed one), as a task of this manager,
  /// so that it is cancelled with the manager.
  private func arm(_ key: TaskKey, at deadline: Duration) {
    let sleep = clock.sleep(for: deadline - clock.now())
    let timer = TaskWork(
      operation: {
        try await sleep()
        self.deadlineReached(key)
      }, onFailure: { _ in }, onRefusal: nil)
    _ = start(timer, key: TaskBook.timerKey(key), priority: nil, isolation: nil)
  }

  /// The timer of `key` fired: starts what its policy releases now.
  private func deadlineReached(_ key: TaskKey) {
    let now = clock.now()
    let (armAt, released) = book.withLock { book -> (Duration?, TaskBook.Held?) in
      guard let policy = book.policies[key] else { return (nil, nil) }
      let decision = book.admission.deadlineReached(key, policy: policy, now: now)
      let released = decision.admitted.flatMap { book.held.removeValue(forKey: $0) }
      book.forgetIfIdle(key)
      return (decision.armAt, released)
    }
    if let armAt { arm(key, at: armAt) }
    if let released { release(released, key: key) }
  }

  /// Starts a task a policy held, on the actor it was run from.
  private func release(_ held: TaskBook.Held, key: TaskKey) {
    let token: Token
    switch book.withLock({ $0.registry.reserve(key: key) }) {
    case .refused, .limited:
      refuse(held, .shutdown)
      return
    case .start(let reserved, let replaced):
      for task in replaced { task.cancel() }
      token = reserved
    }
    let task = Task(priority: held.priority) { [work = held.work, isolation = held.isolation] in
      await TaskWork.execute(work, on: isolation)
      self.finish(token: token)
    }
    attach(task, token: token)
  }
}
