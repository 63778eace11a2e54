import QueryCache

/// The queries a change reaches: one key, or every key under a prefix.
enum QueryTarget: Hashable, Sendable {
  /// The query cached under this key, exactly.
  case key(QueryKey)
  /// Every query cached under a key that starts with this prefix.
  case prefix(QueryKey)
}
