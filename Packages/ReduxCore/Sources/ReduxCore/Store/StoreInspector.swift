/// Sees every action a store runs or refuses: for developer tools (DevTools' recorder), not for
/// app logic, which belongs in middlewares and reducers.
///
/// A store calls it only when it has one (`Store(…, inspector:)`): without one, the pipeline
/// pays a single branch per action.
public protocol StoreInspector<State, Action>: AnyObject, Sendable {
  /// The state of the stores it inspects.
  associatedtype State: ReduxState
  /// The actions of the stores it inspects.
  associatedtype Action: ReduxAction

  /// An action ran through the pipeline: who dispatched it, what happened, and the state after
  /// its reducers. Called on the main actor, before the next action runs.
  ///
  /// - Parameters:
  ///   - action: The action, as dispatched.
  ///   - source: Who dispatched it.
  ///   - outcome: What its synchronous pipeline did.
  ///   - state: The state after it.
  ///   - duration: How long its synchronous pipeline took.
  ///   - finished: When its synchronous pipeline ended (`ClockReader.now(at:)` turns it into
  ///     an injected clock's reading without reading the clock again).
  @MainActor
  func storeDidRun(
    _ action: Action, source: ActionSource, outcome: DispatchOutcome, state: State.ReadOnly,
    duration: Duration, finished: ContinuousClock.Instant)

  /// A dispatch was refused; the action never ran. Called on the dispatching thread.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - reason: Why.
  func storeDidRefuse(_ action: Action, reason: DispatchError)
}

/// Who dispatched an action.
public enum ActionSource: Sendable, Hashable, CustomStringConvertible {
  /// The app: `dispatch` on the store, a `Send`, an awaiting form.
  case caller
  /// The middleware with this id, through its context (in its pipeline or a task).
  case middleware(String)
  /// The resolver with this id, through its context.
  case resolver(String)

  /// The source in words: `caller`, `middleware <id>`, `resolver <id>`.
  public var description: String {
    switch self {
    case .caller: "caller"
    case .middleware(let id): "middleware \(id)"
    case .resolver(let id): "resolver \(id)"
    }
  }
}
