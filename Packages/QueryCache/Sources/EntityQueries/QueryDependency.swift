public import QueryCache

/// Declares which cached queries read which entities: an ``EntityQueryInvalidator`` invalidates
/// (or patches) exactly the queries whose entities a change set touches.
///
/// ```swift
/// let dependencies: [QueryDependency<Card>] = [
///   .query("stats"),                                        // any card change
///   .query(QueryKey("card", 7), ids: [7]),                  // card 7 only
///   .query("overdue", where: { $0.isOverdue }),             // cards overdue before or after
///   .queries(under: "search"),                              // every ["search", …] key
///   .queries(keyedBy: { [QueryKey("count", $0.columnID)] }) // each card's column count…
///     .reading(\.columnID),                                 // …which only its column changes
///   .patch("total", as: Int.self) { total, change in total += change.countChange { _ in true } },
/// ]
/// ```
///
/// ## What a change touches
///
/// Each dependency says which queries read an entity value: a fixed key, every key under a
/// prefix, or keys derived from the value; optionally only for some ids, or for values that
/// satisfy a predicate. A change touches the queries that read the old value or the new one: an
/// insertion those of the new value, a deletion those of the old, and an update both, so a card
/// moved from one column to another touches both columns' queries. With ``reading(_:)``, an
/// update that leaves what the queries read unchanged (with ``readingMembershipOnly()``, any
/// update) touches only the queries that read one of the two values and not the other: a card
/// whose title changed leaves its column's count alone.
///
/// A touched query is invalidated (its data removed, a fetch in flight kept from caching, its
/// observers told to refetch), unless the dependency is a ``patch(_:as:ids:where:with:)``, which
/// folds the changes into the cached value instead.
///
/// The predicates, key functions and facets run when the changes are recorded, on the
/// recording thread, under the invalidator's lock: keep them pure functions of the value (they
/// must not call the invalidator).
public struct QueryDependency<Entity: Identifiable & Equatable & Sendable>: Sendable
where Entity.ID: Sendable {
  /// The queries a dependency names.
  enum Queries: Sendable {
    /// One key, exactly.
    case key(QueryKey)
    /// Every key under a prefix.
    case prefix(QueryKey)
    /// The keys a value gives.
    case keyed(@Sendable (Entity) -> [QueryKey])
  }

  /// A patch, with its value type erased.
  struct Patch: Sendable {
    /// The name of the type the patch expects, for a type mismatch.
    let valueTypeName: String
    /// Folds the changes, in order, into the value cached for the key, in one step on the cache.
    let apply:
      @Sendable (isolated QueryClientCache, QueryKey, [EntityValueChange<Entity>]) ->
        QueryClientCache.PatchOutcome
  }

  let queries: Queries
  /// The only ids whose values the queries read, or `nil` for every id.
  let ids: Set<Entity.ID>?
  /// Which values the queries read, or `nil` for every value.
  let isIncluded: (@Sendable (Entity) -> Bool)?
  /// Whether two values of one entity read the same to the queries: `==` unless ``reading(_:)``
  /// narrowed it.
  private(set) var readsAlike: @Sendable (Entity, Entity) -> Bool
  /// Set for a dependency made by ``patch(_:as:ids:where:with:)``.
  let patch: Patch?

  private init(
    _ queries: Queries, ids: Set<Entity.ID>?, isIncluded: (@Sendable (Entity) -> Bool)?,
    patch: Patch? = nil
  ) {
    self.queries = queries
    self.ids = ids
    self.isIncluded = isIncluded
    self.patch = patch
    readsAlike = { $0 == $1 }
  }

  // MARK: - Declaring

  /// The query cached under `key` reads the entities: a change to any of them (or to those with
  /// `ids`, or whose old or new value satisfies `isIncluded`) invalidates it.
  ///
  /// ```swift
  /// .query("stats")                               // every card
  /// .query(QueryKey("card", id), ids: [id])       // one card
  /// .query("overdue") { $0.isOverdue }            // the cards overdue, before or after
  /// ```
  ///
  /// - Parameters:
  ///   - key: The query's key, matched exactly (not the keys under it).
  ///   - ids: The only ids the query reads; `nil` for every id.
  ///   - isIncluded: Whether the query reads a value; `nil` for every value. It runs on the
  ///     thread that records the changes, for the old and the new value of each change.
  /// - Returns: The dependency.
  public static func query(
    _ key: QueryKey, ids: Set<Entity.ID>? = nil,
    where isIncluded: (@Sendable (Entity) -> Bool)? = nil
  ) -> Self {
    Self(.key(key), ids: ids, isIncluded: isIncluded)
  }

  /// Every query cached under a key that starts with `prefix` (a family, such as every
  /// `["search", text]`) reads the entities: a change to any of them (or to those with `ids`,
  /// or whose old or new value satisfies `isIncluded`) invalidates the whole family.
  ///
  /// ```swift
  /// .queries(under: "search")                     // every search, on any card change
  /// ```
  ///
  /// - Parameters:
  ///   - prefix: The family's prefix. An empty one names every query.
  ///   - ids: The only ids the queries read; `nil` for every id.
  ///   - isIncluded: Whether the queries read a value; `nil` for every value.
  /// - Returns: The dependency.
  public static func queries(
    under prefix: QueryKey, ids: Set<Entity.ID>? = nil,
    where isIncluded: (@Sendable (Entity) -> Bool)? = nil
  ) -> Self {
    Self(.prefix(prefix), ids: ids, isIncluded: isIncluded)
  }

  /// Each entity value is read by the queries cached under the keys `keys` gives for it (a
  /// count per column, per tag): a change invalidates the keys of the old value and those of
  /// the new one, so a card moved from column 1 to column 2 invalidates both columns' keys, and
  /// no other column's.
  ///
  /// ```swift
  /// .queries(keyedBy: { [QueryKey("count", $0.columnID)] }).reading(\.columnID)
  /// .queries(keyedBy: { card in card.tags.map { QueryKey("tag", $0) } }).reading(\.tags)
  /// ```
  ///
  /// - Parameter keys: The keys of the queries that read a value (exact keys); none for a value
  ///   no query reads.
  /// - Returns: The dependency.
  public static func queries(keyedBy keys: @escaping @Sendable (Entity) -> [QueryKey]) -> Self {
    Self(.keyed(keys), ids: nil, isIncluded: nil)
  }

  /// The query cached under `key` reads the entities, and `update` keeps its cached value in
  /// step with their changes instead of invalidating it: a count, a sum, a list it can edit.
  ///
  /// ```swift
  /// .patch("todoCount", as: Int.self, where: { $0.columnID == todo }) { count, change in
  ///   count += change.countChange { $0.columnID == todo }
  /// }
  /// ```
  ///
  /// `update` runs once per change that touches the key (in the order the ids first changed),
  /// all of them in one step on the cache, so no reader sees a value half patched. The patched
  /// value keeps its age: a patch is not a fetch, and a value stale before it is stale after.
  /// When there is nothing to patch the key is left to its next fetch; when a patch could
  /// leave it wrong, the key is invalidated instead:
  ///
  /// - nothing cached: nothing is done;
  /// - a fetch in flight (its result could predate the change): invalidated;
  /// - a value of another type than `Value`: invalidated, and reported as a
  ///   ``/QueryCache/QueryError/typeMismatch(key:expected:stored:)`` (and logged, given a logger).
  ///
  /// - Parameters:
  ///   - key: The query's key, matched exactly.
  ///   - type: The type of the cached value.
  ///   - ids: The only ids the query reads; `nil` for every id.
  ///   - isIncluded: Whether the query reads a value; `nil` for every value. A change whose old
  ///     or new value it includes reaches `update`.
  ///   - update: Folds one change into the value. It runs on the query cache: keep it quick,
  ///     and do not call the cache from it.
  /// - Returns: The dependency.
  public static func patch<Value: Sendable>(
    _ key: QueryKey, as type: Value.Type = Value.self, ids: Set<Entity.ID>? = nil,
    where isIncluded: (@Sendable (Entity) -> Bool)? = nil,
    with update: @escaping @Sendable (inout Value, EntityValueChange<Entity>) -> Void
  ) -> Self {
    let patch = Patch(valueTypeName: "\(Value.self)") { cache, key, changes in
      cache.patchData(key, as: Value.self) { value in
        for change in changes { update(&value, change) }
      }
    }
    return Self(.key(key), ids: ids, isIncluded: isIncluded, patch: patch)
  }

  // MARK: - Narrowing

  /// The same dependency, for queries that read only `facet` of each entity: an update that
  /// leaves the facet equal does not touch them, unless it changes which of them read the
  /// entity (its keys, or whether `isIncluded` holds).
  ///
  /// ```swift
  /// .queries(keyedBy: { [QueryKey("count", $0.columnID)] }).reading(\.columnID)
  /// .queries(under: "search").reading { [$0.title, $0.notes] }
  /// ```
  ///
  /// - Parameter facet: What the queries read of an entity.
  /// - Returns: The narrowed dependency.
  public func reading<Facet: Equatable & Sendable>(_ facet: @escaping @Sendable (Entity) -> Facet)
    -> Self
  {
    var narrowed = self
    narrowed.readsAlike = { facet($0) == facet($1) }
    return narrowed
  }

  /// The same dependency, for queries that read only which entities they cover, not their
  /// values (a count per key): an update touches only the queries that read one of its two
  /// values and not the other.
  ///
  /// ```swift
  /// // A card whose tags go from [red, blue] to [blue, green] touches tag/red and tag/green:
  /// // tag/blue counts it before and after.
  /// .queries(keyedBy: { card in card.tags.map { QueryKey("tag", $0) } }).readingMembershipOnly()
  /// ```
  ///
  /// - Returns: The narrowed dependency.
  public func readingMembershipOnly() -> Self {
    var narrowed = self
    narrowed.readsAlike = { _, _ in true }
    return narrowed
  }
}
