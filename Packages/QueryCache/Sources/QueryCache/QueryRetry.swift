/// How a failed query function is retried: exponential backoff on the client's clock.
///
/// The default is **no retry**: errors reach the screen at once, as in swift-query, and most
/// Swift apps already retry at the transport (URLSession's `waitsForConnectivity`, a retrying
/// HTTP client). TanStack Query's default of three retries would hold an error back for about
/// seven seconds; choose it with `QueryRetry(count: 3)`.
public struct QueryRetry: Hashable, Sendable {
  /// Retries after the first failure.
  public var count: Int
  /// The wait before the first retry; it doubles for each further one.
  public var initialDelay: Duration
  /// The longest wait.
  public var maximumDelay: Duration

  public init(
    count: Int, initialDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(30)
  ) {
    precondition(count >= 0 && initialDelay >= .zero && maximumDelay >= initialDelay)
    self.count = count
    self.initialDelay = initialDelay
    self.maximumDelay = maximumDelay
  }

  /// No retry.
  public static let none = QueryRetry(count: 0)

  /// The wait before retry number `attempt` (1 for the first).
  public func delay(beforeRetry attempt: Int) -> Duration {
    var delay = initialDelay
    for _ in 1..<max(attempt, 1) {
      delay *= 2
      if delay >= maximumDelay { return maximumDelay }
    }
    return min(delay, maximumDelay)
  }
}
