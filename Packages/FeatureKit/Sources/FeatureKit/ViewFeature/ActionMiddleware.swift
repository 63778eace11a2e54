/// What every action middleware has: an id, for logs.
///
/// Hooks are synchronous and run on the MainActor, inside ``FeatureStore/send(_:)``: an action
/// is handled completely, middlewares included, before the next one starts. (ViewFeature's hooks
/// were async, which let two actions interleave and lost updates to value states; async work
/// belongs in an ``ActionTask``.)
public protocol BaseActionMiddleware: Sendable {
  var id: String { get }
}

/// Runs before an action's body. Throwing skips the body: the error goes to every
/// ``ErrorHandlingMiddleware``, then to the handler's `onError`.
public protocol BeforeActionMiddleware: BaseActionMiddleware {
  @MainActor func beforeAction<Action: Sendable, State>(_ action: Action, state: State) throws
}

/// Runs after an action's body, with the task it returned and how long the body took.
/// Throwing reports the error like a before-action failure, but the action has happened: its
/// task still runs.
public protocol AfterActionMiddleware: BaseActionMiddleware {
  @MainActor func afterAction<Action: Sendable, State>(
    _ action: Action, state: State, result: ActionTask<Action, State>, duration: Duration
  ) throws
}

/// Sees every middleware failure. A handler that throws is logged and skipped; the next one
/// still runs.
public protocol ErrorHandlingMiddleware: BaseActionMiddleware {
  @MainActor func onError<Action: Sendable, State>(_ error: any Error, action: Action, state: State)
    throws
}

/// All three hooks; implement the ones you need, the others do nothing.
public protocol ActionMiddleware: BeforeActionMiddleware, AfterActionMiddleware,
  ErrorHandlingMiddleware
{}

extension ActionMiddleware {
  @MainActor public func beforeAction<Action: Sendable, State>(_ action: Action, state: State)
    throws
  {}

  @MainActor public func afterAction<Action: Sendable, State>(
    _ action: Action, state: State, result: ActionTask<Action, State>, duration: Duration
  ) throws {}

  @MainActor public func onError<Action: Sendable, State>(
    _ error: any Error, action: Action, state: State
  ) throws {}
}
