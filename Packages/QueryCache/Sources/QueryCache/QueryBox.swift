/// A query's state, as a view or a command-line front end shows it.
public struct QueryBox<Value: Sendable>: Sendable {
  /// The last value fetched; kept when a later refresh fails.
  public internal(set) var data: Value?
  /// Whether a fetch is running while there is no value to show.
  public internal(set) var isLoading = false
  /// The error of the last fetch, if it failed.
  public internal(set) var error: (any Error)?

  /// An empty box: no value, not loading, no error.
  public init() {}
}
