public import Logging

/// Logs every action through swift-log: before-action at debug, after-action at info with the
/// body's duration in milliseconds, failures always (at error).
public struct LoggingMiddleware: ActionMiddleware {
  public let id = "FeatureKit.Logging"
  /// The least severe level logged; failures are logged whatever it is.
  public let logLevel: Logger.Level
  private let logger: Logger

  /// Logs to a logger labelled `category`.
  public init(
    category: String = "ReduxKit.FeatureKit.LoggingMiddleware", logLevel: Logger.Level = .debug
  ) {
    self.init(logger: Logger(label: category), logLevel: logLevel)
  }

  /// Logs to `logger`.
  public init(logger: Logger, logLevel: Logger.Level = .debug) {
    self.logger = logger
    self.logLevel = logLevel
  }

  @MainActor
  public func beforeAction<Action: Sendable, State>(_ action: Action, state: State) throws {
    guard Logger.Level.debug >= logLevel else { return }
    logger.debug("▶️ \(action)")
  }

  @MainActor
  public func afterAction<Action: Sendable, State>(
    _ action: Action, state: State, result: ActionTask<Action, State>, duration: Duration
  ) throws {
    guard Logger.Level.info >= logLevel else { return }
    let milliseconds = (duration / .microseconds(1)).rounded() / 1_000
    logger.info("✅ \(action) in \(milliseconds) ms → \(result.kind)")
  }

  @MainActor
  public func onError<Action: Sendable, State>(_ error: any Error, action: Action, state: State)
    throws
  {
    logger.error("❌ \(action): \(error)")
  }
}
