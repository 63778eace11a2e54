public import Logging
public import ReduxCore

/// Logs every action a ReduxCore `Store` runs through swift-log: the action before the rest of
/// the pipeline, how long the rest took after it, and, registered as a resolver too, every
/// error.
///
/// ```swift
/// let logging = StoreLoggingMiddleware<AppState, AppAction>(logger: logger, level: .info)
/// let store = Store(
///   initialState: AppState(),
///   middlewares: [AnyMiddleware(logging)],     // first: it times everything after it
///   resolvers: [AnyResolver(logging)],         // first: it sees every error, then forwards it
///   reducers: [app]
/// )
/// ```
///
/// Actions are logged at ``level`` with their `id` as the `action` metadata; the line after the
/// pipeline adds `duration`, read on the injected clock. Errors are logged at `error` whatever
/// ``level`` is, with `action` and `origin` metadata, and forwarded to the next resolver (an
/// error no later resolver handles is also reported by the store's `onLog`).
///
/// The duration covers the synchronous rest of the pipeline: the middlewares after this one and
/// the reducers. A middleware that calls `next()` later, inside a task, ends the measure there.
///
/// It is ReduxCore's counterpart of FeatureKit's `LoggingMiddleware`, which logs a feature's
/// actions.
public struct StoreLoggingMiddleware<State: ReduxState, Action: ReduxAction>: Middleware,
  Resolver
{
  /// The identity reported in the store's logs and as an error's origin.
  public let id: String
  /// The level of the lines logged for each action; errors are logged at `error` regardless.
  public let level: Logger.Level
  private let logger: Logger
  private let clock: ClockReader

  /// Creates the middleware.
  ///
  /// - Parameters:
  ///   - id: The identity reported in the store's logs and as an error's origin.
  ///   - logger: Where to log.
  ///   - level: The level of the lines logged for each action.
  ///   - clock: The clock the durations are read on.
  public init(
    id: String = "ReduxKit.StoreLogging",
    logger: Logger = Logger(label: "ReduxKit.ReduxCore.Store"),
    level: Logger.Level = .debug,
    clock: some Clock<Duration> = ContinuousClock()
  ) {
    self.id = id
    self.logger = logger
    self.level = level
    self.clock = ClockReader(clock)
  }

  /// Logs the action, forwards it, then logs how long the rest of the pipeline took.
  ///
  /// - Parameter context: The action and the rest of the pipeline.
  @MainActor public func run(_ context: MiddlewareContext<State, Action>) {
    let action = context.action
    // NB: below the logger's level nothing is logged, so the clock is not read either.
    guard level >= logger.logLevel else {
      context.next()
      return
    }
    logger.log(level: level, "action \(action)", metadata: ["action": .string(action.id)])
    let start = clock.now()
    context.next()
    let duration = clock.now() - start
    logger.log(
      level: level, "action \(action) handled in \(duration)",
      metadata: ["action": .string(action.id), "duration": .stringConvertible(duration)])
  }

  /// Logs the error at `error` and forwards it to the next resolver.
  ///
  /// - Parameter context: The error, where it came from, and the action during which it
  ///   happened.
  @MainActor public func run(_ context: ResolverContext<State, Action>) {
    logger.error(
      "action \(context.action) failed in \(context.origin): \(context.error)",
      error: context.error,
      metadata: ["action": .string(context.action.id), "origin": "\(context.origin)"])
    context.next()
  }
}
