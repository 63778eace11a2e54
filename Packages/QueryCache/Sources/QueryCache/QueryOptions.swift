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

  /// Creates options; the defaults are swift-query's.
  ///
  /// - Parameters:
  ///   - staleTime: How long a fetched value is fresh; zero or more.
  ///   - gcTime: How long an unobserved entry stays cached; zero or more.
  ///   - refetchOnAppear: Whether ``QueryObserver/appear()`` fetches again.
  ///   - retry: How a failing query function is retried.
  ///   - refetchInterval: The polling period while subscribed; positive, or `nil` for never.
  public init(
    staleTime: Duration = .zero, gcTime: Duration = .seconds(300), refetchOnAppear: Bool = true,
    retry: QueryRetry = .none, refetchInterval: Duration? = nil
  ) {
    precondition(staleTime >= .zero && gcTime >= .zero, "staleTime and gcTime cannot be negative")
    precondition(refetchInterval.map { $0 > .zero } ?? true, "refetchInterval must be positive")
    self.staleTime = staleTime
    self.gcTime = gcTime
    self.refetchOnAppear = refetchOnAppear
    self.retry = retry
    self.refetchInterval = refetchInterval
  }
}
