public import Logging

/// A feature's logic: mutates the state for an action and returns the task to run. ViewFeature's
/// `ActionHandler`, with its immutable builders.
///
/// ```swift
/// ActionHandler { action, state in
///   switch action {
///   case .increment:
///     state.count += 1
///     return .none
///   }
/// }
/// .use(LoggingMiddleware())
/// .onError { error, state in state.error = "\(error)" }
/// ```
///
/// A pipeline: before-action middlewares (in the order added, the first failure stops them),
/// the body, `transform`s, after-action middlewares. A middleware failure reaches every
/// ``ErrorHandlingMiddleware`` and then every `onError`.
public struct ActionHandler<Action: Sendable, State> {
  /// What the feature does for an action: mutate the state, return the task to run.
  public typealias Body = @MainActor (Action, inout State) -> ActionTask<Action, State>
  /// Rewrites the task a body returned (add a `catch`, replace it), applied in the order added.
  public typealias Transform = @MainActor (ActionTask<Action, State>) -> ActionTask<Action, State>

  private let body: Body
  private var errorHandlers: [ActionTask<Action, State>.ErrorHandler] = []
  private var transforms: [Transform] = []
  private var middlewares: [any BaseActionMiddleware] = []

  /// Creates a handler running `body` for every action.
  public init(_ body: @escaping Body) {
    self.body = body
  }

  /// A handler that also writes middleware failures into the state. Handlers added this way
  /// all run, in the order they were added.
  public func onError(_ handler: @escaping ActionTask<Action, State>.ErrorHandler) -> Self {
    var copy = self
    copy.errorHandlers.append(handler)
    return copy
  }

  /// A handler whose tasks pass through `transform` (after those added before it).
  public func transform(_ transform: @escaping Transform) -> Self {
    var copy = self
    copy.transforms.append(transform)
    return copy
  }

  /// A handler that also runs `middleware`'s hooks, after those added before it.
  public func use(_ middleware: some BaseActionMiddleware) -> Self {
    var copy = self
    copy.middlewares.append(middleware)
    return copy
  }

  /// The middlewares, in the order they run.
  public var allMiddlewares: [any BaseActionMiddleware] { middlewares }

  /// Handles `action`: runs the pipeline and returns the task to run.
  ///
  /// A ``FeatureStore`` calls it with its own logger.
  ///
  /// - Parameters:
  ///   - action: The action to handle.
  ///   - state: The state the body mutates.
  ///   - logger: Where a middleware failure that no `onError` handler takes, and a failure of
  ///     an ``ErrorHandlingMiddleware`` itself, are reported.
  /// - Returns: The task the body returned, after every ``transform(_:)``.
  /// - Complexity: O(*m* + *t*) for *m* middlewares and *t* transforms, plus the body's cost.
  @MainActor
  public func handle(
    action: Action, state: inout State,
    logger: Logger = Logger(label: "ReduxKit.FeatureKit.ActionHandler")
  ) -> ActionTask<Action, State> {
    // NB: the clock is read only when an after-action middleware will receive the duration.
    let start = middlewares.isEmpty ? nil : ContinuousClock.now
    do {
      for case let middleware as any BeforeActionMiddleware in middlewares {
        try middleware.beforeAction(action, state: state)
      }
    } catch {
      report(error, action: action, state: &state, logger: logger)
      return .none
    }
    var task = body(action, &state)
    for transform in transforms { task = transform(task) }
    guard let start else { return task }
    let duration = ContinuousClock.now - start
    do {
      for case let middleware as any AfterActionMiddleware in middlewares {
        try middleware.afterAction(action, state: state, result: task, duration: duration)
      }
    } catch {
      report(error, action: action, state: &state, logger: logger)
    }
    return task
  }

  @MainActor
  private func report(
    _ error: any Error, action: Action, state: inout State, logger: Logger
  ) {
    for case let middleware as any ErrorHandlingMiddleware in middlewares {
      do {
        try middleware.onError(error, action: action, state: state)
      } catch let handlerError {
        logger.error(
          "error middleware \(middleware.id) failed: \(handlerError) (handling \(error))")
      }
    }
    if errorHandlers.isEmpty {
      logger.error("action \(action) failed in a middleware: \(error)")
    }
    for handler in errorHandlers { handler(error, &state) }
  }
}
