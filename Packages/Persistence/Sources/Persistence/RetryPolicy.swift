/// How long the middleware waits before retrying a failed flush: exponential backoff.
///
/// The default (0.5 s, doubling, at most 30 s) retries a transient failure (a locked database, a
/// full disk being cleaned) quickly, and backs off a persistent one so that it does not spin.
/// Failed changes are never dropped: retries go on until a flush succeeds or the app shuts down.
public struct RetryPolicy: Sendable, Equatable {
  /// The wait after the first failure.
  public var initialDelay: Duration
  /// The factor applied to the wait after each further failure.
  public var multiplier: Int
  /// The longest wait.
  public var maximumDelay: Duration

  /// Creates a policy.
  public init(
    initialDelay: Duration = .milliseconds(500), multiplier: Int = 2,
    maximumDelay: Duration = .seconds(30)
  ) {
    precondition(initialDelay > .zero && multiplier >= 1 && maximumDelay >= initialDelay)
    self.initialDelay = initialDelay
    self.multiplier = multiplier
    self.maximumDelay = maximumDelay
  }

  /// The default policy.
  public static var `default`: RetryPolicy { RetryPolicy() }

  /// The wait before retry number `attempt` (1 for the first retry).
  public func delay(beforeRetry attempt: Int) -> Duration {
    var delay = initialDelay
    for _ in 1..<max(attempt, 1) {
      delay *= multiplier
      if delay >= maximumDelay { return maximumDelay }
    }
    return min(delay, maximumDelay)
  }
}
