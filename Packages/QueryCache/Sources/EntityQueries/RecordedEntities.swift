import EntityTracking

/// The value of every entity as last recorded: what the next change set is judged against.
///
/// A change set names ids; the store holds their values now; this holds their values before.
/// Comparing the two tells an insertion from an update, gives a deletion its old value, and
/// finds nothing for an id whose value is the one recorded already, so reading a change set
/// that nothing drained a second time changes nothing.
struct RecordedEntities<Entity: Identifiable & Equatable & Sendable>: Sendable
where Entity.ID: Sendable {
  /// The recorded values. NB: an `EntityStore` rather than a `Dictionary`: O(1) lookups and
  /// writes as well, and a deterministic order for ``changes(toMatch:)``. Its own change log is
  /// reset after every recording.
  private(set) var values: EntityStore<Entity>

  /// Records the entities of `store` as they are.
  ///
  /// - Complexity: O(1): the store's storage is shared until one of the two changes (then
  ///   copied once, O(*n*)).
  init(_ store: EntityStore<Entity>) {
    values = store
  }

  /// The changes of the entities with `ids` between their recorded values and their values in
  /// `store`, in the order of `ids`; records the values of `store`.
  ///
  /// - Parameters:
  ///   - ids: The ids that may have changed (each once), such as a change set's.
  ///   - store: The store holding their current values.
  /// - Returns: One change per id whose value differs; none for an id recorded with its
  ///   current value, or deleted and never recorded.
  /// - Complexity: O(*c*) amortized, *c* the number of ids, plus one comparison of two values
  ///   per id present on both sides.
  mutating func changes(
    of ids: some Sequence<Entity.ID>, in store: EntityStore<Entity>
  ) -> [EntityValueChange<Entity>] {
    var changes: [EntityValueChange<Entity>] = []
    for id in ids {
      if let change = record(old: values[id], new: store[id], id: id) { changes.append(change) }
    }
    values.resetChanges()
    return changes
  }

  /// The changes between every recorded value and the entities of `store`: the deletions in
  /// recorded order, then the insertions and updates in the store's order; records the values
  /// of `store`. For changes the store did not record (a hydration by `merge`).
  ///
  /// - Parameter store: The store holding the current values.
  /// - Returns: One change per entity whose value differs.
  /// - Complexity: O(*n* + *r*), *n* the entities of `store` and *r* those recorded, with one
  ///   comparison per entity on both sides.
  mutating func changes(toMatch store: EntityStore<Entity>) -> [EntityValueChange<Entity>] {
    let deletedIDs = values.lazy.map(\.id).filter { !store.contains($0) }
    let deletions = Array(deletedIDs)
    return changes(of: deletions, in: store) + changes(of: store.lazy.map(\.id), in: store)
  }

  /// Records the value `id` has now, and returns the change from the value recorded before.
  private mutating func record(old: Entity?, new: Entity?, id: Entity.ID)
    -> EntityValueChange<Entity>?
  {
    switch (old, new) {
    case (nil, nil):
      return nil
    case (nil, let new?):
      values.upsert(new)
      return .insertion(new)
    case (let old?, nil):
      values.remove(id)
      return .deletion(old)
    case (let old?, let new?):
      guard old != new else { return nil }
      values.upsert(new)
      return .update(from: old, to: new)
    }
  }
}
