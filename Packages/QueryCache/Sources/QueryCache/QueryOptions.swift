/// How a query caches and refreshes.
public struct QueryOptions: Hashable, Sendable {
  /// How long a fetched value is fresh. A value whose age is `staleTime` or more is stale:
  /// with the default of zero, every cached value is stale (shown, then refreshed).
  public var staleTime: Duration
  /// How long an entry with no observers stays cached after its last observer left (or after it
  /// was fetched, if nothing ever observed it).
  public var gcTime: Duration
  /// Whether ``QueryObserver/appear()`` fetches again.
  public var refetchOnAppear: Bool
  /// How a failing query function is retried (default: not at all; see ``QueryRetry``).
  public var retry: QueryRetry
  /// While ``QueryObserver/subscribe()`` runs, refetch this often (polling); `nil` for never.
  public var refetchInterval: Duration?

  /// What the initializer changed to bring its arguments into range, one sentence each
  /// (``retry``'s included); empty when they all were. ``QueryClient`` logs them as warnings,
  /// each once. Part of equality.
  public private(set) var adjustments: [String] = []

  /// Creates options; the defaults are swift-query's.
  ///
  /// An argument out of range does not trap: it is clamped, and ``adjustments`` says how.
  ///
  /// - Parameters:
  ///   - staleTime: How long a fetched value is fresh; zero or more (a negative one is zero).
  ///   - gcTime: How long an unobserved entry stays cached; zero or more (a negative one is zero).
  ///   - refetchOnAppear: Whether ``QueryObserver/appear()`` fetches again.
  ///   - retry: How a failing query function is retried.
  ///   - refetchInterval: The polling period while subscribed; positive, or `nil` for never (zero
  ///     or less, which would poll without pause, is `nil`).
  public init(
    staleTime: Duration = .zero, gcTime: Duration = .seconds(300), refetchOnAppear: Bool = true,
    retry: QueryRetry = .none, refetchInterval: Duration? = nil
  ) {
    self.staleTime = max(staleTime, .zero)
    self.gcTime = max(gcTime, .zero)
    self.refetchOnAppear = refetchOnAppear
    self.retry = retry
    self.refetchInterval = refetchInterval.flatMap { $0 > .zero ? $0 : nil }
    adjustments = retry.adjustments
    if staleTime < .zero {
      adjustments.append("QueryOptions: staleTime \(staleTime) is negative; using 0 seconds")
    }
    if gcTime < .zero {
      adjustments.append("QueryOptions: gcTime \(gcTime) is negative; using 0 seconds")
    }
    if let interval = refetchInterval, interval <= .zero {
      adjustments.append(
        "QueryOptions: refetchInterval \(interval) would poll without pause; polling is off")
    }
  }
}
