/// What every action middleware has: an id, for logs.
///
/// Hooks are synchronous and run on the MainActor, inside ``FeatureStore/send(_:)``: an action
/// is handled completely, middlewares included, before the next one starts. (ViewFeature's hooks
/// were async, which let two actions interleave and lost updates to value states; async work
/// belongs in an ``ActionTask``.)
public protocol BaseActionMiddleware: Sendable {
  /// The middleware's name in logs.
  var id: String { get }
}

/// Runs before an action's body. Throwing skips the body: the error goes to every
/// ``ErrorHandlingMiddleware``, then to the handler's `onError`.
public protocol BeforeActionMiddleware: BaseActionMiddleware {
  /// Runs before the body of the handler for `action`.
  ///
  /// - Parameters:
  ///   - action: The action about to be handled.
  ///   - state: The state before the action.
  /// - Throws: Any error, to skip the body and report the failure.
  @MainActor func beforeAction<Action: Sendable, State>(_ action: Action, state: State) throws
}

/// Runs after an action's body, with the task it returned and how long the body took.
/// Throwing reports the error like a before-action failure, but the action has happened: its
/// task still runs.
public protocol AfterActionMiddleware: BaseActionMiddleware {
  /// Runs after the body of the handler for `action` (and its `transform`s).
  ///
  /// - Parameters:
  ///   - action: The action that was handled.
  ///   - state: The state after the action.
  ///   - result: The task the body returned, after the `transform`s.
  ///   - duration: How long the before-action middlewares, the body and the transforms took.
  /// - Throws: Any error, to report a failure; the task still runs.
  @MainActor func afterAction<Action: Sendable, State>(
    _ action: Action, state: State, result: ActionTask<Action, State>, duration: Duration
  ) throws
}

/// Sees every middleware failure. A handler that throws is logged and skipped; the next one
/// still runs.
public protocol ErrorHandlingMiddleware: BaseActionMiddleware {
  /// Sees a failure of a before-action or after-action middleware.
  ///
  /// - Parameters:
  ///   - error: What the middleware threw.
  ///   - action: The action being handled.
  ///   - state: The state when it failed.
  /// - Throws: Any error; it is logged, and the next handler still runs.
  @MainActor func onError<Action: Sendable, State>(_ error: any Error, action: Action, state: State)
    throws
}

/// All three hooks; implement the ones you need, the others do nothing.
public protocol ActionMiddleware: BeforeActionMiddleware, AfterActionMiddleware,
  ErrorHandlingMiddleware
{}

extension ActionMiddleware {
  /// Does nothing: implement it to act before an action's body.
  @MainActor public func beforeAction<Action: Sendable, State>(_ action: Action, state: State)
    throws
  {}

  /// Does nothing: implement it to act after an action's body.
  @MainActor public func afterAction<Action: Sendable, State>(
    _ action: Action, state: State, result: ActionTask<Action, State>, duration: Duration
  ) throws {}

  /// Does nothing: implement it to see middleware failures.
  @MainActor public func onError<Action: Sendable, State>(
    _ error: any Error, action: Action, state: State
  ) throws {}
}
