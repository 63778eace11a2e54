public import Logging
public import Observation
public import ReduxCore

/// Runs a ``StoreFeature``: ViewFeature's `Store` (also reachable as `ViewFeature.Store`).
///
/// ```swift
/// let store = FeatureStore(initialState: Search.State(), feature: Search())
/// store.send(.queryChanged("swift"))     // the state has changed when send returns
/// await store.send(.submit).value        // …and this waits for the task `.submit` started
/// ```
///
/// `send` handles the action at once, on the MainActor, then starts its task on the store's
/// ``/ReduxCore/TaskManager`` (ReduxCore's task runtime). Actions are handled in the order
/// they are sent; their tasks run concurrently. Releasing the store cancels the tasks it
/// started, and only those: a ``/ReduxCore/TaskManager`` shared with other stores keeps theirs.
@MainActor
public final class FeatureStore<Feature: StoreFeature>: Observable {
  /// The feature's state.
  public typealias State = Feature.State
  /// The feature's actions.
  public typealias Action = Feature.Action

  /// The current state; reading it in a view (or `withObservationTracking`) observes it.
  public var state: State {
    registrar.access(self, keyPath: stateKeyPath)
    return storedState
  }

  // NB: observation written with the public Observation API rather than the @Observable
  // macro, whose generated names (`_state`, `_$observationRegistrar`) `send` would have to
  // reach and a toolchain may rename.
  private var storedState: State
  private let registrar = ObservationRegistrar()
  /// Built once: a generic class's key path is made at run time, on every use otherwise.
  private let stateKeyPath = \FeatureStore.state
  private let handler: ActionHandler<Action, State>
  private let taskManager: TaskManager
  private let logger: Logger
  /// The tasks this store started that have not ended, by start order: what it cancels, so
  /// that a manager shared with other stores keeps their tasks.
  private var ownTasks: [UInt64: (id: any TaskID, task: Task<Void, Never>)] = [:]
  private var nextTaskNumber: UInt64 = 0
  /// The ids this store ran tasks under with an admission policy: a policy may hold a task
  /// and start it later, so the store cancels these by id.
  private var policyTaskIDs: [AnyHashable: any TaskID] = [:]
  /// Sees every action before it is handled, effects' included (FeatureTestStore's history).
  package var willHandle: (@MainActor (Action) -> Void)?
  /// Sees every action before it is handled, those its tasks send included: for developer
  /// tools, which show them beside a store's actions.
  ///
  /// ```swift
  /// search.onAction = { recorder.record(.feature, name: "\($0)", source: "search") }
  /// ```
  public var onAction: (@MainActor (Action) -> Void)?

  /// Creates a store.
  ///
  /// - Parameters:
  ///   - initialState: The state the store starts with.
  ///   - feature: The feature; its `handle()` is called once, here.
  ///   - taskManager: Where the feature's tasks run; a manager may be shared by several stores
  ///     (a task id then replaces across them). Each store cancels only the tasks it started,
  ///     when it goes away and in ``cancelAllTasks()``.
  ///   - logger: Where failed tasks with no `catch`, and middleware failures no `onError`
  ///     handler takes, are reported.
  public init(
    initialState: State,
    feature: Feature,
    taskManager: TaskManager = TaskManager(),
    logger: Logger = Logger(label: "ReduxKit.FeatureKit.FeatureStore")
  ) {
    self.storedState = initialState
    self.handler = feature.handle()
    self.taskManager = taskManager
    self.logger = logger
  }

  isolated deinit {
    cancelOwnTasks()
  }

  /// Handles `action`, then starts the task it returned.
  ///
  /// - Parameter action: The action to handle.
  /// - Returns: A task that ends when the action's own task ends (at once for `.none`,
  ///   `.cancel`, and a task its admission policy holds or refuses: ``waitUntilIdle()`` waits
  ///   for a held one). Awaiting it does not wait for other actions.
  @discardableResult
  public func send(_ action: Action) -> Task<Void, Never> {
    willHandle?(action)
    onAction?(action)
    let task = registrar.withMutation(of: self, keyPath: stateKeyPath) {
      handler.handle(action: action, state: &storedState, logger: logger)
    }
    return start(task)
  }

  /// Cancels the running task with this id, as `.cancel(id:)` would.
  ///
  /// - Parameter id: The id of the task to cancel.
  public func cancelTask(id: some TaskID) {
    taskManager.cancelTask(id: id)
  }

  /// Cancels every running task this store started (a shared manager's other tasks go on).
  ///
  /// - Complexity: O(*n*), where *n* is the number of running tasks the store started.
  public func cancelAllTasks() {
    cancelOwnTasks()
  }

  private func cancelOwnTasks() {
    for (id, task) in ownTasks.values {
      // NB: through the manager, so that `isTaskRunning(id:)` turns false at once, as after
      // `cancelTask(id:)`. A task not cancelled yet is the manager's live one under its id (a
      // task started later under the same id, by any store, cancels the one it replaces), so
      // cancelling the id stops this one and nothing else.
      if task.isCancelled { continue }
      taskManager.cancelTask(id: id)
      task.cancel()
    }
    for id in policyTaskIDs.values { taskManager.cancelTask(id: id) }
    policyTaskIDs = [:]
  }

  /// The number of tasks still running on the store's manager, cancelled ones that are
  /// unwinding included.
  public var runningTaskCount: Int { taskManager.runningTaskCount }

  /// Whether a task with this id runs and has not been cancelled.
  ///
  /// - Parameter id: The task's id.
  /// - Returns: `true` while the task runs, until it is cancelled or replaced.
  public func isTaskRunning(id: some TaskID) -> Bool {
    taskManager.isTaskRunning(id: id)
  }

  /// Suspends until no task runs on the store's manager, including tasks started by actions
  /// those tasks sent.
  ///
  /// - Complexity: O(1) to register; it resumes when the last task ends.
  public func waitUntilIdle() async {
    await taskManager.waitUntilIdle()
  }

  private func start(_ task: ActionTask<Action, State>) -> Task<Void, Never> {
    switch task.storage {
    case .none:
      return .finished
    case .cancel(let id):
      taskManager.cancelTask(id: id)
      return .finished
    case .run(let id, let policy?, let operation, let onError):
      let send = Send<Action> { [weak self] action in self?.send(action) }
      policyTaskIDs[AnyHashable(id)] = id
      let admission = taskManager.run(id: id, policy: policy) { @MainActor in
        try await operation(send)
      } onFailure: { @MainActor [weak self] error in
        self?.taskFailed(id: id, error, onError)
      } onRefusal: { @MainActor [logger] refusal in
        let level: Logger.Level = refusal == .superseded ? .debug : .warning
        logger.log(level: level, "task \(id) did not run: \(refusal)")
      }
      return admission.task ?? .finished
    case .run(let id, nil, let operation, let onError):
      let send = Send<Action> { [weak self] action in self?.send(action) }
      let number = nextTaskNumber
      nextTaskNumber += 1
      // NB: the task cannot run before `start` returns (both are on the main actor), so it is
      // registered in `ownTasks` before its body can remove it.
      let started = taskManager.run(id: id) { @MainActor [weak self] in
        defer { self?.ownTasks[number] = nil }
        try await operation(send)
      } onFailure: { @MainActor [weak self] error in
        self?.taskFailed(id: id, error, onError)
      }
      guard let started else {
        logger.error("task \(id) not started: the task manager is shut down")
        return .finished
      }
      ownTasks[number] = (id, started)
      return started
    }
  }

  private func taskFailed(
    id: any TaskID, _ error: any Error, _ onError: ActionTask<Action, State>.ErrorHandler?
  ) {
    guard let onError else {
      logger.error("task \(id) failed: \(error)")
      return
    }
    registrar.withMutation(of: self, keyPath: stateKeyPath) { onError(error, &storedState) }
  }
}
