/// What a fetch returned, and what a screen needs to say about it: where the value came from,
/// how old it is, and whether it is still fresh.
///
/// ```swift
/// let fetched = await client.fetchResult(queryKey: ["user", id]) { try await api.user(id) }
/// if fetched.source == .cache, !fetched.isFresh { showRefreshingBadge() }
/// ```
public struct QueryResult<Value: Sendable>: Sendable {
  /// The value, or why there is none: a ``QueryError`` for a key holding another type, or the
  /// error the query function threw.
  public var result: Result<Value, any Error>
  /// `false` only for a cached value as old as `staleTime` or older.
  public var isFresh: Bool
  /// Where the value came from.
  public var source: QuerySource
  /// When the value was cached, on the client's clock; `nil` when it was not (a failure, or a
  /// fetch invalidated or cancelled while it ran).
  public var updatedAt: Duration?

  @usableFromInline
  init(result: Result<Value, any Error>, isFresh: Bool, source: QuerySource, updatedAt: Duration?) {
    self.result = result
    self.isFresh = isFresh
    self.source = source
    self.updatedAt = updatedAt
  }

  /// The value, if the fetch succeeded; ``result`` holds the error otherwise.
  public var value: Value? {
    if case .success(let value) = result { value } else { nil }
  }
}
