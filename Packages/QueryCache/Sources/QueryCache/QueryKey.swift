/// Identifies a query: hierarchical parts, so that `["users"]` is a prefix of `["users", 1]`.
///
/// ```swift
/// let all: QueryKey = "users"
/// let one = QueryKey("users", 42)        // parts ["users", "42"], description "users/42"
/// let same: QueryKey = ["users", 42]     // the same key, from an array literal
/// ```
///
/// Parts are strings: `["user", 1]` and `["user", "1"]` are the same key, as in swift-query.
///
/// ``init(_:_:)`` builds a key from its parts' own types. An array literal is an array of
/// `any CustomStringConvertible`, boxed and converted part by part at run time (about three
/// times the instructions): build hot keys with ``init(_:_:)``, or once, and reuse them.
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

  /// A key made of the descriptions of its parts, outermost first: `QueryKey("user", id)`.
  ///
  /// Each part keeps its own type (a parameter pack), so the key is built without the array of
  /// existentials an array literal makes, and the descriptions are specialized for those types.
  ///
  /// A single array argument is a key of its elements (``init(_:)``) if they are strings, and
  /// otherwise one part: its description.
  ///
  /// - Parameters:
  ///   - first: The outermost part.
  ///   - rest: The other parts, outermost first.
  /// - Complexity: O(*k*), where *k* is the number of parts.
  @inlinable
  public init<First: CustomStringConvertible, each Part: CustomStringConvertible>(
    _ first: First, _ rest: repeat each Part
  ) {
    var count = 1
    for _ in repeat each rest { count += 1 }
    var parts: [String] = []
    parts.reserveCapacity(count)
    parts.append(first.description)
    for part in repeat each rest { parts.append(part.description) }
    self.parts = parts
  }

  /// A key made of the descriptions of `elements`: `["user", 1]`.
  ///
  /// - Parameter elements: The parts, outermost first.
  /// - Complexity: O(*k*), where *k* is the number of parts.
  public init(arrayLiteral elements: any CustomStringConvertible...) {
    // NB: `description` rather than interpolation: the same string, without building it twice.
    parts = elements.map(\.description)
  }

  /// A key of one part: `"users"`.
  ///
  /// - Parameter value: The part.
  public init(stringLiteral value: String) {
    parts = [value]
  }

  /// The parts joined by "/".
  ///
  /// - Complexity: O(*k*), where *k* is the total length of the parts.
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
