public import QueryCache

/// What one change set did to the query cache: the queries invalidated and the ones patched in
/// place. ``EntityQueryInvalidator/apply(_:in:)`` returns it.
///
/// ```swift
/// let update = await cardQueries.apply(cards.drainChanges(), in: cards)
/// update.invalidatedKeys       // [count/1, count/2]: the card moved from column 1 to 2
/// update.invalidatedPrefixes   // [search]: every search
/// update.patchedKeys           // [stats]
/// ```
public struct EntityQueryUpdate: Equatable, Sendable {
  /// How many entities changed value since the previous recording. Ids the change set names
  /// whose value is the one recorded before (an undrained change set read again) count not.
  public var changedEntityCount: Int
  /// The keys invalidated one by one, in the order the changes first touched them; a patch
  /// that could not be applied (see ``errors``) is invalidated here too.
  public var invalidatedKeys: [QueryKey]
  /// The prefixes every key under which was invalidated (a family such as `"search"`).
  public var invalidatedPrefixes: [QueryKey]
  /// The keys whose cached value was patched in place. A key with nothing cached is in no
  /// list: there was nothing to patch, and its next fetch computes it.
  public var patchedKeys: [QueryKey]
  /// The patches that met a key holding a value of another type than the patch's (a
  /// ``/QueryCache/QueryError/typeMismatch(key:expected:stored:)`` each); those keys were
  /// invalidated instead.
  public var errors: [QueryError]

  /// An update that changed nothing.
  public init() {
    changedEntityCount = 0
    invalidatedKeys = []
    invalidatedPrefixes = []
    patchedKeys = []
    errors = []
  }

  /// Whether the update reached no query: nothing invalidated, nothing patched.
  public var isEmpty: Bool {
    invalidatedKeys.isEmpty && invalidatedPrefixes.isEmpty && patchedKeys.isEmpty
  }
}
