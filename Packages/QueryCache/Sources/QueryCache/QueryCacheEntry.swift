/// What the cache holds for a key, read through ``QueryClientCache/entry(queryKey:as:)``.
public struct QueryCacheEntry<Value: Sendable>: Sendable {
  /// The last value fetched or set.
  public var data: Value?
  /// The error of the last fetch, if it failed (the data is kept).
  public var error: (any Error)?
  /// When `data` was stored, on the client's clock; `nil` if never.
  public var updatedAt: Duration?
}
