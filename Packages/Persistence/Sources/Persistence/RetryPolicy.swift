public import ReduxCore

/// How long the middleware waits before retrying a failed flush: exponential backoff.
///
/// The default (0.5 s, doubling, at most 30 s) retries a transient failure (a locked database, a
/// full disk being cleaned) quickly, and backs off a persistent one so that it does not spin.
/// Failed changes are never dropped: retries go on until a flush succeeds or the app shuts down.
///
/// The waits are ReduxCore's `Backoff`, stored in ``backoff``; the other properties read and
/// write it.
public struct RetryPolicy: Hashable, Sendable {
  /// The waits between retries.
  public var backoff: Backoff

  /// The wait after the first failure.
  public var initialDelay: Duration {
    get { backoff.initialDelay }
    set { backoff.initialDelay = newValue }
  }

  /// The factor applied to the wait after each further failure.
  public var multiplier: Int {
    get { backoff.multiplier }
    set { backoff.multiplier = newValue }
  }

  /// The longest wait.
  public var maximumDelay: Duration {
    get { backoff.maximumDelay }
    set { backoff.maximumDelay = newValue }
  }

  /// What the initializers changed to bring their arguments into range, one sentence each
  /// (the backoff's included); empty when they all were. ``PersistenceMiddleware`` logs them as
  /// warnings. Part of equality.
  public private(set) var adjustments: [String] = []

  /// Creates a policy.
  ///
  /// An argument out of range does not trap: it is clamped, and ``adjustments`` says how.
  ///
  /// - Parameters:
  ///   - initialDelay: The wait after the first failure; more than zero (zero or less is the
  ///     default, 0.5 s, so that a persistent failure does not spin).
  ///   - multiplier: The factor applied to the wait after each further failure; 1 or more.
  ///   - maximumDelay: The longest wait; a shorter one than `initialDelay` is `initialDelay`.
  public init(
    initialDelay: Duration = .milliseconds(500), multiplier: Int = 2,
    maximumDelay: Duration = .seconds(30)
  ) {
    self.init(
      backoff: Backoff(
        initialDelay: initialDelay, multiplier: multiplier, maximumDelay: maximumDelay))
  }

  /// Creates a policy waiting as `backoff` says.
  ///
  /// - Parameter backoff: The waits; an initial delay of zero is the default, 0.5 s (and the
  ///   maximum at least that), so that a persistent failure does not spin.
  public init(backoff: Backoff) {
    self.backoff = backoff
    adjustments = backoff.adjustments
    if backoff.initialDelay <= .zero {
      let delay = Duration.milliseconds(500)
      adjustments.append(
        "RetryPolicy: initialDelay \(backoff.initialDelay) would retry without waiting; using \(delay)"
      )
      self.backoff.initialDelay = delay
      self.backoff.maximumDelay = max(backoff.maximumDelay, delay)
    }
  }

  /// The default policy.
  public static var `default`: RetryPolicy { RetryPolicy() }

  /// The wait before retry number `attempt` (1 for the first retry).
  ///
  /// - Parameter attempt: The retry about to wait; below 1 it counts as 1.
  /// - Returns: The wait, at most ``maximumDelay``.
  /// - Complexity: O(log(``maximumDelay`` / ``initialDelay``)) at most; see `Backoff`.
  public func delay(beforeRetry attempt: Int) -> Duration {
    backoff.delay(beforeRetry: attempt)
  }
}
