/// A query's state, as a view or a command-line front end shows it.
public struct QueryBox<Value: Sendable>: Sendable {
  /// The last value fetched; kept when a later refresh fails.
  public internal(set) var data: Value?
  /// Whether a fetch is running while there is no value to show: the first load.
  public internal(set) var isLoading = false
  /// Whether a fetch is running, the first load or a refresh behind a shown value.
  public internal(set) var isFetching = false
  /// The error of the last fetch, if it failed.
  public internal(set) var error: (any Error)?
  /// When ``data`` was cached, on the client's clock.
  public internal(set) var dataUpdatedAt: Duration?
  /// Where ``data`` came from: the query function (``QuerySource/network``) or the cache,
  /// read by a fetch or kept in sync with another observer's fetch (``QuerySource/cache``).
  public internal(set) var source: QuerySource?

  /// An empty box: no value, not loading, no error.
  public init() {}
}
