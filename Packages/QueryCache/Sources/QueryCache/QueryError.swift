/// A misuse of the cache, reported instead of a silent overwrite or a crash.
public enum QueryError: Error, Sendable, Equatable {
  /// The key holds (or is fetching) a value of another type than the one asked for.
  case typeMismatch(key: QueryKey, expected: String, stored: String)
}

extension QueryError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .typeMismatch(let key, let expected, let stored):
      "query \(key) holds \(stored), not \(expected)"
    }
  }
}
