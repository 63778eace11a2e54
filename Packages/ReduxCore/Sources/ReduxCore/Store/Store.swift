public import Observation

/// The store: holds the state and runs every dispatched action through the pipeline.
///
/// `dispatch` can be called from any thread. Actions wait in a bounded FIFO queue and run on
/// the main actor, in batches. A main-actor job runs actions for at most about 2 ms, then lets
/// other main-actor work (a UI, a timer, a `shutdown()`) run before the next job continues, so a
/// flood of dispatches from background tasks never freezes the main actor.
/// Each action goes through the middlewares (first registered runs first, in onion order), the
/// reducers (in array order), and, for errors, the resolvers.
///
/// ```swift
/// let store = Store(
///   initialState: CounterState(),
///   middlewares: [logging],
///   resolvers: [recovery],
///   reducers: [counter]
/// )
/// store.dispatch(.increment)
/// let state = await store.dispatchWithResult(.increment)
/// ```
///
/// Nothing is dropped silently: a refused dispatch returns `false` (or throws, with the
/// `try` variants) and is reported through `onLog` as ``Event/refused(_:reason:)``.
///
/// Releasing the store, or calling ``shutdown()``, refuses further actions, cancels every task
/// its middlewares started, ends every ``changes(of:)`` stream, and resumes every pending
/// `dispatchWithResult`.
@MainActor
@Observable
@dynamicMemberLookup
public final class Store<State: ReduxState, Action: ReduxAction> {
  /// The default bound of the action queue.
  public nonisolated static var defaultQueueCapacity: Int { 256 }

  @usableFromInline nonisolated let worker: DispatchWorker<State, Action>

  /// The live read-only state.
  public var state: State.ReadOnly { worker.readOnly }

  /// Reads a value of the state: `store.count` for `store.state.count`.
  public subscript<Value>(dynamicMember keyPath: KeyPath<State.ReadOnly, Value>) -> Value {
    worker.readOnly[keyPath: keyPath]
  }

  /// Creates a store.
  ///
  /// - Parameters:
  ///   - initialState: The state the store owns from now on.
  ///   - middlewares: Run first-registered-first, before the reducers.
  ///   - resolvers: Run first-registered-first for every error a middleware throws or resolves.
  ///   - reducers: Run in array order for every action the middlewares forward.
  ///   - queueCapacity: How many admitted actions may wait for the main actor at once; a
  ///     dispatch beyond it is refused with ``DispatchError/queueFull(capacity:)``. The batch
  ///     being processed is not counted, so up to twice as many actions may be in memory. Less
  ///     than 1 is 1, reported as ``Event/adjusted(_:)``.
  ///   - admissionPolicies: The ``AdmissionPolicy`` of each action id named here, applied to
  ///     every dispatch of that id that neither chooses a policy nor passes `maxDispatchable`
  ///     (from middlewares, resolvers and ``send`` too).
  ///   - clock: The clock of the timed policies (`debounce`, `throttle`), for dispatches and for
  ///     the tasks of ``tasks``; a `ManualClock` in tests.
  ///   - inspector: Sees every action run or refused (developer tools: DevTools' recorder).
  ///   - onLog: Receives timing logs and store events, on the thread where they happen. When
  ///     `nil`, the pipeline reads no clock.
  /// - Complexity: O(*m* + *r*), where *m* is the number of middlewares and *r* the number of
  ///   reducers.
  public init(
    initialState: State,
    middlewares: [AnyMiddleware<State, Action>] = [],
    resolvers: [AnyResolver<State, Action>] = [],
    reducers: [AnyReducer<State, Action>] = [],
    queueCapacity: Int = defaultQueueCapacity,
    admissionPolicies: [String: AdmissionPolicy] = [:],
    clock: any Clock<Duration> = ContinuousClock(),
    inspector: (any StoreInspector<State, Action>)? = nil,
    onLog: (@Sendable (Log) -> Void)? = nil
  ) {
    worker = DispatchWorker(
      state: initialState, middlewares: middlewares, resolvers: resolvers, reducers: reducers,
      queueCapacity: queueCapacity, admissionPolicies: admissionPolicies,
      clock: ClockReader(clock), inspector: inspector, onLog: onLog)
  }

  /// A store with an empty pipeline, for previews and tests that only read state.
  ///
  /// - Parameter state: The state the store owns.
  /// - Returns: A store with no middleware, reducer or resolver.
  public static func previewState(_ state: State) -> Store {
    Store(initialState: state)
  }

  isolated deinit {
    worker.shutdown()
  }

  /// Ends the store: refuses further actions (``DispatchError/shutdown``), cancels every task
  /// its middlewares started, ends every ``changes(of:)`` stream, and resumes every pending
  /// `dispatchWithResult`. Actions still queued are logged as ``Event/discarded(_:reason:)``.
  /// It also releases the middlewares, reducers and resolvers, so one that kept its context
  /// does not keep the store's pipeline alive; such a context forwards nothing afterwards, and
  /// what its `next` forwards is logged as discarded. Calling it again does nothing.
  ///
  /// - Complexity: O(*q* + *t* + *s*), where *q* is the number of queued actions, *t* the
  ///   number of running tasks and *s* the number of ``changes(of:)`` streams.
  public func shutdown() {
    worker.shutdown()
  }

  /// Holds the actions dispatched from now on in the queue, until ``resume()``: what a
  /// developer tool does while it shows an earlier state. The action running finishes first;
  /// the queue's bound still applies (a dispatch beyond it is refused, as always).
  public func pause() {
    worker.pause()
  }

  /// Runs the actions held since ``pause()``, in order, and those dispatched later.
  public func resume() {
    worker.resume()
  }

  /// Whether the store holds its actions (``pause()``).
  public var isPaused: Bool { worker.isPaused }

  /// The task runtime running this store's middleware tasks.
  public nonisolated var tasks: TaskManager { worker.tasks }
}

extension Store where State: UndoableState {
  /// Puts `snapshot` back as the state while the store is paused: a developer tool's time
  /// travel. As an undo does, it records the difference (an `EntityStore` restores through
  /// `restore(from:)`), so observers show it and persistence saves it with the next action.
  ///
  /// - Parameters:
  ///   - snapshot: A state's ``UndoableState/undoSnapshot``.
  ///   - undoHistory: The history to undo from afterwards, when the snapshot belongs to another
  ///     timeline (a state recomputed without some action, whose history the recomputing store
  ///     kept); `nil` keeps the state's own.
  /// - Precondition: The store is paused (``pause()``): no action runs meanwhile.
  public func restoreWhilePaused(
    _ snapshot: State.UndoSnapshot, undoHistory: UndoHistory<State.UndoSnapshot>? = nil
  ) {
    precondition(worker.isPaused, "Store.restoreWhilePaused: pause() the store first")
    worker.state.restoreUndoSnapshot(snapshot)
    if let undoHistory { worker.state.undoHistory = undoHistory }
    worker.subscriptions.stateMayHaveChanged()
  }

  /// The history that undo and redo walk, as the reducers left it.
  public var undoHistory: UndoHistory<State.UndoSnapshot> { worker.state.undoHistory }
}
