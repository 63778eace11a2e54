public import FeatureKit
import Synchronization

/// Drives a ``/FeatureKit/StoreFeature`` in a test: send actions, check the state they leave.
///
/// ```swift
/// @MainActor @Test func loads() async {
///   let store = FeatureTestStore(initialState: Items.State(), feature: Items(api: .stub))
///   await store.send(.load) { $0.isLoading = true }
///   await store.waitUntilIdle()                 // runs the `.run` task and what it sent
///   #expect(store.state.items.count == 3)
/// }
/// ```
///
/// The feature runs in a real ``/FeatureKit/FeatureStore``: `.run` tasks run on its task
/// runtime and `.cancel` cancels them. `send` returns once the action is handled; ``waitUntilIdle()``
/// waits for the tasks. A test that releases the store while tasks still run fails (as in TCA),
/// unless ``allowsRunningTasksAtEnd`` is set.
@MainActor
public final class FeatureTestStore<Feature: StoreFeature> {
  /// The feature's state.
  public typealias State = Feature.State
  /// The feature's actions.
  public typealias Action = Feature.Action

  /// Every action handled so far, in order, the ones tasks sent included.
  public private(set) var actionHistory: [Action] = []
  /// Whether the test may end with tasks running; they are cancelled then.
  public var allowsRunningTasksAtEnd: Bool {
    get { allowsRunningTasks.withLock { $0 } }
    set { allowsRunningTasks.withLock { $0 = newValue } }
  }
  /// Where failed expectations are reported.
  public let assertionProvider: any AssertionProvider

  private let store: FeatureStore<Feature>
  private let tasks: TaskManager
  /// NB: behind a lock, so that the nonisolated deinit can read it.
  private let allowsRunningTasks: Mutex<Bool>
  private let createdAt: TestLocation

  /// Creates a test store running `feature` from `initialState`.
  ///
  /// - Parameters:
  ///   - initialState: The state the feature starts with.
  ///   - feature: The feature under test.
  ///   - assertionProvider: Where failed expectations are reported: Swift Testing by default.
  ///   - allowsRunningTasksAtEnd: Whether the test may end with tasks running.
  ///   - clock: The clock of the tasks' admission policies (`.run(id:policy:)`): a
  ///     `ManualClock` lets the test decide when a debounce ends.
  ///   - location: Where the store was made: a store released with tasks running fails there.
  public init(
    initialState: State,
    feature: Feature,
    assertionProvider: any AssertionProvider = SwiftTestingAssertionProvider(),
    allowsRunningTasksAtEnd: Bool = false,
    clock: any Clock<Duration> = ContinuousClock(),
    location: TestLocation = TestLocation()
  ) {
    self.tasks = TaskManager(clock: clock)
    self.store = FeatureStore(initialState: initialState, feature: feature, taskManager: tasks)
    self.assertionProvider = assertionProvider
    self.allowsRunningTasks = Mutex(allowsRunningTasksAtEnd)
    self.createdAt = location
    store.willHandle = { [weak self] action in self?.actionHistory.append(action) }
  }

  // NB: not isolated: an isolated deinit runs without the test's task-locals, and Swift Testing
  // could not tell which test the issue belongs to ("Test «unknown»"). Released in the test,
  // this deinit runs in the test's task. (The store cancels its tasks in its own deinit.)
  deinit {
    let running = tasks.runningTaskCount
    guard running > 0, !allowsRunningTasks.withLock({ $0 }) else { return }
    assertionProvider.fail(
      "The test ended with \(running) task(s) still running. Await waitUntilIdle(), cancel them, "
        + "or set allowsRunningTasksAtEnd.",
      at: createdAt)
  }

  /// The current state.
  public var state: State { store.state }

  /// The number of tasks still running.
  public var runningTaskCount: Int { store.runningTaskCount }

  /// Whether a task with this id runs.
  ///
  /// - Parameter id: The task's id.
  /// - Returns: `true` while the task runs, until it is cancelled or replaced.
  public func isTaskRunning(id: some Hashable & Sendable) -> Bool { store.isTaskRunning(id: id) }

  /// Handles `action` and returns the new state.
  ///
  /// - Parameter action: The action to handle.
  /// - Returns: The state after the action (its task may still run).
  @discardableResult
  public func send(_ action: Action) async -> State {
    store.send(action)
    return store.state
  }

  /// Handles `action` and checks its result against the state before it with `update` applied.
  ///
  /// A class state must conform to ``CopyableState``; otherwise this fails and says so.
  ///
  /// - Parameters:
  ///   - action: The action to handle.
  ///   - update: Applies to a copy of the state before the action what the action should do.
  ///   - location: Where the expectation was written.
  /// - Returns: The state after the action.
  @discardableResult
  public func send(
    _ action: Action, expecting update: (inout State) -> Void,
    location: TestLocation = TestLocation()
  ) async -> State where State: Equatable {
    guard var expected = snapshot(at: location) else { return await send(action) }
    update(&expected)
    store.send(action)
    assertionProvider.assertEqual(
      store.state, expected, "State mismatch after \(action)", at: location)
    return store.state
  }

  /// Handles `action` and hands the new state to `assert`.
  ///
  /// Pass the closure with its label: a trailing closure is an `expecting` update when the
  /// state is `Equatable`. (With a class state both would accept `{ $0.name = "Ada" }`, and the
  /// read-only one would mutate the live state and check nothing.)
  ///
  /// - Parameters:
  ///   - action: The action to handle.
  ///   - assert: Checks the state after the action, with `#expect`.
  /// - Returns: The state after the action.
  @_disfavoredOverload
  @discardableResult
  public func send(_ action: Action, assert: (State) -> Void) async -> State {
    store.send(action)
    assert(store.state)
    return store.state
  }

  /// Handles `action` and checks one property of the new state.
  ///
  /// - Parameters:
  ///   - action: The action to handle.
  ///   - keyPath: The property to check.
  ///   - expected: Its expected value after the action.
  ///   - location: Where the expectation was written.
  /// - Returns: The state after the action.
  @discardableResult
  public func send<Value: Equatable>(
    _ action: Action, _ keyPath: KeyPath<State, Value>, _ expected: Value,
    location: TestLocation = TestLocation()
  ) async -> State {
    store.send(action)
    assertionProvider.assertEqual(
      store.state[keyPath: keyPath], expected, "Property mismatch at \(keyPath) after \(action)",
      at: location)
    return store.state
  }

  /// Handles `action` and checks one property of the new state: the labelled spelling of
  /// ``send(_:_:_:location:)``.
  ///
  /// - Parameters:
  ///   - action: The action to handle.
  ///   - keyPath: The property to check.
  ///   - expected: Its expected value after the action.
  ///   - location: Where the expectation was written.
  /// - Returns: The state after the action.
  @discardableResult
  public func send<Value: Equatable>(
    _ action: Action, expecting keyPath: KeyPath<State, Value>, toBe expected: Value,
    location: TestLocation = TestLocation()
  ) async -> State {
    await send(action, keyPath, expected, location: location)
  }

  /// Waits until every task has ended, including tasks started by actions that tasks sent,
  /// and returns the state then.
  ///
  /// - Returns: The state once no task runs.
  @discardableResult
  public func waitUntilIdle() async -> State {
    await store.waitUntilIdle()
    return store.state
  }

  /// Cancels every running task and waits for them to end.
  ///
  /// - Complexity: O(*n*) to cancel, where *n* is the number of running tasks.
  public func cancelAllTasks() async {
    store.cancelAllTasks()
    await store.waitUntilIdle()
  }

  /// A copy of the state to apply an expectation to, or `nil` (and a failure) when the state is
  /// a class that cannot be copied.
  private func snapshot(at location: TestLocation) -> State? {
    let state = store.state
    if let copyable = state as? any CopyableState {
      return copyable.copy() as? State
    }
    guard !(State.self is AnyObject.Type) else {
      assertionProvider.fail(
        "\(State.self) is a class: `expecting` cannot tell its state before the action from after. "
          + "Conform it to CopyableState, or use a key path or `assert:`.",
        at: location)
      return nil
    }
    return state
  }
}

extension ViewFeature {
  /// ViewFeature's name for ``FeatureTestStore``. ReduxCore's testing kit may own the plain
  /// `TestStore` (NAMING.md): FeatureKit's seed names live in their seed's namespace.
  public typealias TestStore<Feature: StoreFeature> = FeatureTestStore<Feature>
}
