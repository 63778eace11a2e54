/// Identifies a query: hierarchical parts, so that `["users"]` is a prefix of `["users", 1]`.
///
/// ```swift
/// let all: QueryKey = "users"
/// let one: QueryKey = ["users", 42]      // parts ["users", "42"], description "users/42"
/// ```
///
/// Parts are strings: `["user", 1]` and `["user", "1"]` are the same key, as in swift-query.
public struct QueryKey: Hashable, Sendable, ExpressibleByArrayLiteral, ExpressibleByStringLiteral,
  CustomStringConvertible
{
  /// The parts, outermost first.
  public var parts: [String]

  /// A key made of `parts`, outermost first. An empty key is a prefix of every key: QueryClient
  /// refuses it where that would reach every entry.
  ///
  /// - Parameter parts: The parts.
  public init(_ parts: [String]) {
    self.parts = parts
  }

  public init(arrayLiteral elements: any CustomStringConvertible...) {
    parts = elements.map { "\($0)" }
  }

  public init(stringLiteral value: String) {
    parts = [value]
  }

  /// The parts joined by "/".
  public var description: String {
    parts.joined(separator: "/")
  }

  /// Whether `prefix`'s parts begin this key's parts (a key is a prefix of itself).
  ///
  /// - Complexity: O(*k*), where *k* is the number of parts of `prefix`.
  public func hasPrefix(_ prefix: QueryKey) -> Bool {
    parts.starts(with: prefix.parts)
  }
}
