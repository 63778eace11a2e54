/// Where a query's value came from.
public enum QuerySource: Sendable, Equatable {
  /// The cache: the query function did not run for it.
  case cache
  /// The query function, run for this fetch or by a fetch in flight it joined.
  case network
}
