public import ReduxCore

/// How a failed query function is retried: exponential backoff on the client's clock.
///
/// The default is **no retry**: errors reach the screen at once, as in swift-query, and most
/// Swift apps already retry at the transport (URLSession's `waitsForConnectivity`, a retrying
/// HTTP client). TanStack Query's default of three retries would hold an error back for about
/// seven seconds; choose it with `QueryRetry(count: 3)`.
///
/// The waits are ReduxCore's `Backoff`, stored in ``backoff``; ``initialDelay`` and
/// ``maximumDelay`` read and write it.
public struct QueryRetry: Hashable, Sendable {
  /// Retries after the first failure.
  public var count: Int
  /// The waits between retries.
  public var backoff: Backoff

  /// The wait before the first retry; it doubles for each further one (unless ``backoff`` says
  /// another multiplier).
  public var initialDelay: Duration {
    get { backoff.initialDelay }
    set { backoff.initialDelay = newValue }
  }

  /// The longest wait.
  public var maximumDelay: Duration {
    get { backoff.maximumDelay }
    set { backoff.maximumDelay = newValue }
  }

  /// What the initializers changed to bring their arguments into range, one sentence each
  /// (the backoff's included); empty when they all were. ``QueryClient`` logs them as warnings.
  /// Part of equality.
  public private(set) var adjustments: [String] = []

  /// Creates a retry rule whose wait doubles after each retry.
  ///
  /// An argument out of range does not trap: it is clamped, and ``adjustments`` says how.
  ///
  /// - Parameters:
  ///   - count: Retries after the first failure; 0 or more (0: no retry; a negative count is 0).
  ///   - initialDelay: The wait before the first retry; zero or more.
  ///   - maximumDelay: The longest wait; a shorter one than `initialDelay` is `initialDelay`.
  public init(
    count: Int, initialDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(30)
  ) {
    self.init(
      count: count,
      backoff: Backoff(initialDelay: initialDelay, multiplier: 2, maximumDelay: maximumDelay))
  }

  /// Creates a retry rule waiting as `backoff` says.
  ///
  /// - Parameters:
  ///   - count: Retries after the first failure; 0 or more (0: no retry; a negative count is 0).
  ///   - backoff: The waits between retries.
  public init(count: Int, backoff: Backoff) {
    self.count = max(count, 0)
    self.backoff = backoff
    adjustments = backoff.adjustments
    if count < 0 {
      adjustments.append("QueryRetry: count \(count) is negative; using 0 (no retry)")
    }
  }

  /// No retry.
  public static let none = QueryRetry(count: 0)

  /// The wait before retry number `attempt` (1 for the first).
  ///
  /// - Parameter attempt: The retry about to wait; below 1 it counts as 1.
  /// - Returns: The wait, at most ``maximumDelay``.
  /// - Complexity: O(log(``maximumDelay`` / ``initialDelay``)) at most; see `Backoff`.
  public func delay(beforeRetry attempt: Int) -> Duration {
    backoff.delay(beforeRetry: attempt)
  }
}
