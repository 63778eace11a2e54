/// What a ``QueryClient`` did with a key: for developer tools, which show it beside a store's
/// actions (DevTools records it), and for an app's own metrics.
///
/// ```swift
/// let client = QueryClient(onEvent: { event in
///   recorder.record(.query, name: event.name, source: "query", payload: .string("\(event.key)"))
/// })
/// ```
public enum QueryEvent: Sendable, Equatable, CustomStringConvertible {
  /// A cached value answered a fetch (`isFresh`: younger than its stale time).
  case hit(QueryKey, isFresh: Bool)
  /// A query function started for the key (concurrent callers join it).
  case fetch(QueryKey)
  /// The fetch ended; its value was cached (`cached`), or not (a failure, an invalidation or
  /// a cancellation while it ran).
  case fetched(QueryKey, cached: Bool)
  /// The key's cached data was dropped, and its observers told.
  case invalidated(QueryKey)
  /// The key's unobserved entry was collected after its gc time.
  case collected(QueryKey)

  /// The key the event is about.
  public var key: QueryKey {
    switch self {
    case .hit(let key, _), .fetch(let key), .fetched(let key, _), .invalidated(let key),
      .collected(let key):
      key
    }
  }

  /// The event's name: `hit`, `fetch`, `fetched`, `invalidated`, `collected`.
  public var name: String {
    switch self {
    case .hit: "hit"
    case .fetch: "fetch"
    case .fetched: "fetched"
    case .invalidated: "invalidated"
    case .collected: "collected"
    }
  }

  /// The event in words, as `fetch ["user", 1]`.
  public var description: String {
    switch self {
    case .hit(let key, let isFresh): "hit \(key) (\(isFresh ? "fresh" : "stale"))"
    case .fetched(let key, let cached): "fetched \(key)\(cached ? "" : " (not cached)")"
    default: "\(name) \(key)"
    }
  }
}
