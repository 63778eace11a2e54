public import Logging
public import Observation
import Synchronization

/// What every view model shows, whatever its state type: what a navigation flow's screen
/// builder receives.
@MainActor
public protocol DLViewModelProtocol: AnyObject, Identifiable {
  /// The state object the view model runs its reducer on.
  associatedtype State: BusinessState
  /// The state object: what a screen renders.
  var state: State { get }
}

/// A screen's model: runs a ``FeatureReducer`` on its state object and its procedures on a
/// ``/ReduxCore/TaskManager`` (DLVVM's `DLViewModel`, with no UI framework).
///
/// ```swift
/// let counter = ViewModelOf<Counter>(initialState: .init(), reducer: Counter())
/// counter.send(.increment)
/// print(counter.count)           // dynamic member lookup into the state
/// ```
///
/// Releasing the view model cancels its procedures; a procedure's `send` after that is ignored.
@MainActor
@dynamicMemberLookup
public final class DLViewModel<State: BusinessState>: DLViewModelProtocol, Observable {
  /// The actions of the state's reducer.
  public typealias Action = State.R.Action

  /// The state object. Replacing it (for example after a restore) moves the view model to it;
  /// reading it in a view (or `withObservationTracking`) observes the replacement. (The state's
  /// own properties are observed through the state object, an `@Observable` class.)
  public var state: State {
    get {
      registrar.access(self, keyPath: stateKeyPath)
      return storedState
    }
    set {
      registrar.withMutation(of: self, keyPath: stateKeyPath) {
        guard newValue !== storedState else { return }
        storedState = newValue
        children = [:]
      }
    }
  }

  // NB: observation written with the public Observation API rather than the @Observable
  // macro, whose generated names (`_state`, `_$observationRegistrar`) `send` would have to
  // reach and a toolchain may rename.
  private var storedState: State
  private let registrar = ObservationRegistrar()
  /// Built once: a generic class's key path is made at run time, on every use otherwise.
  private let stateKeyPath = \DLViewModel.state

  /// The reducer that handles every action sent to this view model.
  public let reducer: State.R
  public nonisolated let id = ViewModelID()

  let clock: ClockReader
  let logger: Logger
  private let tasks: TaskManager
  /// Child view models made by `scope`, kept so each child state has one.
  private var children: [ObjectIdentifier: AnyObject] = [:]
  /// Stops the parent from hearing this view model's events.
  private var eventSubscription: (state: ObjectIdentifier, token: Int)?

  /// Creates a view model.
  ///
  /// - Parameters:
  ///   - initialState: The state object; the view model mutates it in place.
  ///   - reducer: Handles every action sent to the view model.
  ///   - clock: The clock of `.timer` procedures and of admission policies
  ///     (``Procedure/admitted(id:policy:)``); children made by `scope` share it.
  ///   - logger: Where procedure failures with no `catch` are reported.
  public init(
    initialState: State,
    reducer: State.R,
    clock: some Clock<Duration> = ContinuousClock(),
    logger: Logger = Logger(label: "ReduxKit.FeatureKit.DLViewModel")
  ) {
    self.storedState = initialState
    self.reducer = reducer
    self.clock = ClockReader(clock)
    self.tasks = TaskManager(clock: self.clock)
    self.logger = logger
  }

  init(state: State, reducer: State.R, clock: ClockReader, logger: Logger) {
    self.storedState = state
    self.reducer = reducer
    self.clock = clock
    self.tasks = TaskManager(clock: clock)
    self.logger = logger
  }

  isolated deinit {
    tasks.shutdown()
    if let eventSubscription {
      StateChannels.stopListening(to: eventSubscription.state, token: eventSubscription.token)
    }
  }

  /// Reads a value of the state: `viewModel.count` for `viewModel.state.count`.
  ///
  /// - Parameter keyPath: The value's key path in the state.
  public subscript<Value>(dynamicMember keyPath: KeyPath<State, Value>) -> Value {
    state[keyPath: keyPath]
  }

  /// Runs the reducer for `action` now, then starts the procedure it returned.
  ///
  /// - Parameter action: The action to reduce.
  /// - Returns: A task that ends when that procedure ends (already ended for `.none`, and for a
  ///   procedure its admission policy holds or refuses: ``waitUntilIdle()`` waits for a held
  ///   one).
  @discardableResult
  public func send(_ action: Action) -> Task<Void, Never> {
    // NB: `storedState`, not `state`: sending is not a read to observe.
    let logger = logger
    let procedure = StateChannels.reducing(with: logger) {
      reducer.reduce(into: storedState, action: action)
    }
    guard !procedure.isNone else { return .finished }
    let send = Send<Action> { [weak self] action in self?.send(action) }
    let name = "\(action)"
    let runtime = Procedure<Action, State>.Runtime(
      send: send, clock: clock, tasks: tasks,
      failed: { error in logger.error("procedure for \(name) failed: \(error)") },
      refused: { refusal in
        let level: Logger.Level = refusal == .superseded ? .debug : .warning
        logger.log(level: level, "procedure for \(name) did not run: \(refusal)")
      })
    return procedure.launch(in: runtime).task ?? .finished
  }

  /// The number of procedures still running.
  public var runningTaskCount: Int { tasks.runningTaskCount }

  /// Suspends until no procedure of this view model runs, including those started by actions
  /// its procedures sent (a child view model's procedures run on the child's own runtime).
  ///
  /// ```swift
  /// viewModel.send(.load)
  /// await viewModel.waitUntilIdle()
  /// #expect(viewModel.items.count == 3)
  /// ```
  ///
  /// - Complexity: O(1) to register; it resumes when the last procedure ends.
  public func waitUntilIdle() async {
    await tasks.waitUntilIdle()
  }

  /// A view model for the child state at `keyPath`, whose events reach this view model as the
  /// actions `event` maps them to (synchronously; `nil` delivers nothing). The same child state
  /// gets the same view model.
  ///
  /// - Parameters:
  ///   - keyPath: Where the child state lives in this view model's state.
  ///   - event: Maps the child's events to this view model's actions.
  ///   - reducer: The child's reducer.
  /// - Returns: The child state's view model, made on first use and then cached.
  public func scope<Child: BusinessState>(
    state keyPath: KeyPath<State, Child>,
    event: ((Child.R.Event) -> Action?)? = nil,
    reducer: Child.R
  ) -> DLViewModel<Child> {
    scope(state: state[keyPath: keyPath], event: event, reducer: reducer)
  }

  /// A view model for `child`, whose events reach this view model as the actions `event` maps
  /// them to.
  ///
  /// - Parameters:
  ///   - child: The child state object.
  ///   - event: Maps the child's events to this view model's actions (synchronously; `nil`
  ///     delivers nothing).
  ///   - reducer: The child's reducer.
  /// - Returns: The child state's view model, made on first use and then cached.
  public func scope<Child: BusinessState>(
    state child: Child,
    event: ((Child.R.Event) -> Action?)? = nil,
    reducer: Child.R
  ) -> DLViewModel<Child> {
    let key = ObjectIdentifier(child)
    if let cached = children[key] as? DLViewModel<Child>, cached.state === child { return cached }
    let viewModel = DLViewModel<Child>(state: child, reducer: reducer, clock: clock, logger: logger)
    if let event {
      let token = StateChannels.listen(to: child) { [weak self] fired in
        guard let self, let fired = fired as? Child.R.Event, let action = event(fired) else {
          return
        }
        self.send(action)
      }
      viewModel.eventSubscription = (key, token)
    }
    children[key] = viewModel
    return viewModel
  }

  /// Forgets the child view model of `child` (its procedures stop when nothing else holds it).
  func dropChild(_ child: AnyObject) {
    children[ObjectIdentifier(child)] = nil
  }
}

/// A view model's identity, stable for its lifetime.
public struct ViewModelID: Hashable, Sendable {
  private static let counter = Atomic<Int>(0)
  private let value = ViewModelID.counter.wrappingAdd(1, ordering: .relaxed).newValue
}

/// The view model of a reducer's state: `ViewModelOf<Counter>`.
public typealias ViewModelOf<R: FeatureReducer> = DLViewModel<R.State>
