extension QueryDependency {
  /// The queries that read `entity`: none if the dependency's ids or predicate leave it out.
  ///
  /// - Complexity: O(1) plus the predicate, or the cost of the key function for keyed queries.
  func targets(reading entity: Entity) -> [QueryTarget] {
    if let ids, !ids.contains(entity.id) { return [] }
    if let isIncluded, !isIncluded(entity) { return [] }
    switch queries {
    case .key(let key): return [.key(key)]
    case .prefix(let prefix): return [.prefix(prefix)]
    case .keyed(let keys): return keys(entity).map(QueryTarget.key)
    }
  }

  /// The queries `change` touches: those that read the old value or the new one; for an update
  /// whose two values read alike (``reading(_:)``), only those that read one and not the other.
  ///
  /// - Returns: Each target once, those of the old value first.
  /// - Complexity: O(*t*²) for *t* targets (a handful), plus two evaluations of the predicate
  ///   or the key function.
  func targets(touchedBy change: EntityValueChange<Entity>) -> [QueryTarget] {
    switch change {
    case .insertion(let new):
      return Self.uniqued(targets(reading: new))
    case .deletion(let old):
      return Self.uniqued(targets(reading: old))
    case .update(let old, let new):
      let before = Self.uniqued(targets(reading: old))
      let after = Self.uniqued(targets(reading: new))
      guard readsAlike(old, new) else { return Self.uniqued(before + after) }
      // NB: the queries that read both values read the same thing: only a change of which
      // queries read the entity touches them.
      return before.filter { !after.contains($0) } + after.filter { !before.contains($0) }
    }
  }

  private static func uniqued(_ targets: [QueryTarget]) -> [QueryTarget] {
    guard targets.count > 1 else { return targets }
    var seen = Set<QueryTarget>()
    return targets.filter { seen.insert($0).inserted }
  }
}
