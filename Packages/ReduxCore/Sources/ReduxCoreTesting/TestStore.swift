public import ReduxCore
import Synchronization
public import Testing

/// Tests a ReduxCore `Store` exhaustively: after each `send`, every action the pipeline
/// dispatches (from a middleware, its tasks, or a resolver) must be received, in order, before
/// the next `send` and before the test ends.
///
/// ```swift
/// @MainActor @Test func loads() async {
///   let store = TestStore(
///     initialState: AppState(), middlewares: [api.middleware], reducers: [app])
///   await store.send(.load) { #expect($0.isLoading) }
///   await store.receive(.loaded(["a", "b"])) { #expect($0.items == ["a", "b"]) }
///   await store.finish()    // nothing left to receive, no task running
/// }
/// ```
///
/// A failure (an action received that was not expected, one never received, one sent while
/// others wait to be received) is a Swift Testing issue at the caller's line. State checks are
/// closures over the state's read-only projection: they see the state *now*, which includes
/// what the pipeline already processed after the action.
@MainActor
public final class TestStore<State: ReduxState, Action: ReduxAction> {
  /// The store under test.
  public let store: Store<State, Action>
  /// Whether the test may end with middleware tasks still running; they are cancelled then.
  public var allowsRunningTasksAtEnd: Bool {
    get { allowsRunningTasks.withLock { $0 } }
    set { allowsRunningTasks.withLock { $0 = newValue } }
  }

  private let journal = ActionJournal<State, Action>()
  private let createdAt: SourceLocation
  /// NB: behind a lock, so that the nonisolated deinit can read it.
  private let allowsRunningTasks: Mutex<Bool>

  /// Creates a test store over a new `Store`.
  ///
  /// - Parameters:
  ///   - initialState: The state the store starts with.
  ///   - middlewares: The store's middlewares; a recording one runs before them.
  ///   - resolvers: The store's resolvers.
  ///   - reducers: The store's reducers.
  ///   - allowsRunningTasksAtEnd: Whether the test may end with tasks running.
  ///   - sourceLocation: Where the store was made: a test that ends with actions not received
  ///     fails there.
  public init(
    initialState: State,
    middlewares: [AnyMiddleware<State, Action>] = [],
    resolvers: [AnyResolver<State, Action>] = [],
    reducers: [AnyReducer<State, Action>] = [],
    allowsRunningTasksAtEnd: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    self.store = Store(
      initialState: initialState, middlewares: [journal.middleware()] + middlewares,
      resolvers: resolvers, reducers: reducers, queueCapacity: .max)
    self.allowsRunningTasks = Mutex(allowsRunningTasksAtEnd)
    self.createdAt = sourceLocation
  }

  // NB: not isolated: an isolated deinit runs without the test's task-locals, and Swift Testing
  // could not tell which test an issue it records belongs to ("Test «unknown»"). Released in
  // the test, this deinit runs in the test's task. (The store shuts down in its own deinit.)
  deinit {
    let unreceived = journal.unreceivedDescriptions.withLock { $0 }
    if !unreceived.isEmpty {
      Self.fail(
        "The test ended with \(unreceived.count) dispatched action(s) not received: "
          + "\(unreceived.joined(separator: ", ")). Receive them, or call finish().",
        at: createdAt)
    }
    let running = store.tasks.runningTaskCount
    if running > 0, !allowsRunningTasks.withLock({ $0 }) {
      Self.fail(
        "The test ended with \(running) task(s) still running. Await finish(), or set "
          + "allowsRunningTasksAtEnd.",
        at: createdAt)
    }
  }

  /// The state now, read through its read-only projection.
  public var state: State.ReadOnly { store.state }

  /// Dispatches `action`, waits until the pipeline has processed it, and checks the state.
  ///
  /// Every action dispatched since the last `send` must have been received first.
  ///
  /// - Parameters:
  ///   - action: The action to dispatch.
  ///   - sourceLocation: Where the call was written, for its failures.
  ///   - assert: Checks the state after the action, with `#expect`.
  public func send(
    _ action: Action,
    sourceLocation: SourceLocation = #_sourceLocation,
    assert: ((State.ReadOnly) -> Void)? = nil
  ) async {
    let unreceived = journal.unreceived
    if !unreceived.isEmpty {
      Self.fail(
        "Sent \(action) while \(unreceived.count) dispatched action(s) wait to be received: "
          + "\(unreceived.map { "\($0)" }.joined(separator: ", "))",
        at: sourceLocation)
      journal.skipUnreceived()
    }
    journal.willSend(action)
    do {
      _ = try await store.tryDispatchWithResult(action)
    } catch {
      Self.fail("The store refused \(action): \(error)", at: sourceLocation)
      return
    }
    assert?(store.state)
  }

  /// Waits for the next action the pipeline dispatched and checks that it is `expected`.
  ///
  /// It waits while middleware tasks run (advance a test clock first if they sleep on one),
  /// and fails at once when the store is idle with nothing left to receive.
  ///
  /// - Parameters:
  ///   - expected: The action the pipeline should have dispatched next.
  ///   - sourceLocation: Where the call was written, for its failures.
  ///   - assert: Checks the state once the action is received, with `#expect`.
  public func receive(
    _ expected: Action,
    sourceLocation: SourceLocation = #_sourceLocation,
    assert: ((State.ReadOnly) -> Void)? = nil
  ) async {
    guard let received = await nextReceived() else {
      Self.fail(
        "Expected to receive \(expected), but the store is idle and dispatched nothing more",
        at: sourceLocation)
      return
    }
    if received != expected {
      Self.fail(
        "Received \(received), expected \(expected)", at: sourceLocation)
    }
    assert?(store.state)
  }

  /// Waits until the store is idle (nothing queued, no middleware task running) and fails if
  /// dispatched actions were not received.
  ///
  /// - Parameter sourceLocation: Where the call was written, for its failures.
  public func finish(sourceLocation: SourceLocation = #_sourceLocation) async {
    await store.waitUntilIdle()
    let unreceived = journal.unreceived
    guard !unreceived.isEmpty else { return }
    Self.fail(
      "\(unreceived.count) dispatched action(s) not received: "
        + "\(unreceived.map { "\($0)" }.joined(separator: ", "))",
      at: sourceLocation)
    journal.skipUnreceived()
  }

  /// The next dispatched action not yet received, once the pipeline has processed it; `nil`
  /// when the store became idle without one.
  private func nextReceived() async -> Action? {
    await store.waitUntilActionsProcessed()
    if let action = journal.takeNext() { return action }
    // NB: a running task may still dispatch one: wait for the journal to record it, or for the
    // store to go idle (then everything dispatched has been recorded).
    var version = journal.beginWait()
    let store = store
    let journal = journal
    Task { @MainActor in
      await store.waitUntilIdle()
      journal.storeBecameIdle()
    }
    while true {
      await journal.waitForChange(after: version)
      version = journal.currentVersion
      await store.waitUntilActionsProcessed()
      if let action = journal.takeNext() { return action }
      if journal.isIdle { return nil }
    }
  }

  private nonisolated static func fail(_ message: String, at location: SourceLocation) {
    Issue.record(Comment(rawValue: message), sourceLocation: location)
  }
}
