/// An ordered, keyed, change-tracked collection of entities: a dictionary that iterates in
/// insertion order and records which ids changed.
///
/// ```swift
/// var cards = EntityStore<Card>()
/// cards[card.id] = card                          // insert or replace: records an upsert
/// cards.modify(card.id) { $0.title = "New" }     // records an upsert if the value changed
/// cards[card.id] = nil                           // delete: records a deletion
/// let changes = cards.drainChanges()             // hand them to persistence, clear them
/// ```
///
/// The last operation on an id wins in ``changes``: deleting then re-inserting an id records an
/// upsert only; inserting then deleting records a deletion only; storing a value equal to the
/// stored one records nothing.
///
/// Deletion by id is O(1) amortized: a deleted entity leaves a tombstone, and the storage is
/// compacted once tombstones outnumber live entities. Two stores are equal when they hold equal
/// entities in the same order; recorded changes are ignored.
public struct EntityStore<Entity: Identifiable & Equatable & Sendable>: Sendable
where Entity.ID: Sendable {
  public typealias ID = Entity.ID

  /// Entities in insertion order; `nil` marks a deleted entity not yet compacted away.
  @usableFromInline var slots: [Entity?]
  /// The slot of every live entity.
  @usableFromInline var positions: [ID: Int]
  @usableFromInline var recorded: ChangeSet<ID>

  /// Ids changed since the last ``resetChanges()`` or ``drainChanges()``.
  public var changes: ChangeSet<ID> { recorded }

  /// An empty store.
  @inlinable
  public init() {
    slots = []
    positions = [:]
    recorded = ChangeSet()
  }

  /// A store holding `entities` in order, recording no changes (hydration). A later entity with
  /// the id of an earlier one replaces it in place.
  ///
  /// - Complexity: O(*n*), where *n* is the number of entities.
  @inlinable
  public init(_ entities: some Sequence<Entity>) {
    self.init()
    slots.reserveCapacity(entities.underestimatedCount)
    for entity in entities { store(entity) }
  }

  // MARK: - Reading

  /// The number of entities.
  public var count: Int { positions.count }

  /// Whether the store holds no entity.
  public var isEmpty: Bool { positions.isEmpty }

  /// Whether an entity with this id is stored.
  @inlinable
  public func contains(_ id: ID) -> Bool {
    positions[id] != nil
  }

  /// The entities in insertion order.
  ///
  /// - Complexity: O(*n*).
  @inlinable
  public var values: [Entity] {
    slots.compactMap { $0 }
  }

  /// The ids in insertion order.
  ///
  /// - Complexity: O(*n*).
  @inlinable
  public var ids: [ID] {
    slots.compactMap { $0?.id }
  }

  // MARK: - Writing

  /// The entity with this id; setting a value inserts (appends) or replaces it in place, and
  /// setting `nil` deletes it. Each recorded in ``changes`` unless nothing changed.
  ///
  /// - Precondition: A value set under `id` has that id.
  /// - Complexity: O(1) amortized.
  @inlinable
  public subscript(id: ID) -> Entity? {
    get {
      guard let position = positions[id] else { return nil }
      return slots[position]
    }
    set {
      guard let newValue else {
        remove(id)
        return
      }
      precondition(
        newValue.id == id, "Stored an entity with id \(newValue.id) under id \(id)")
      upsert(newValue)
    }
  }

  /// Inserts `entity` at the end, or replaces the stored entity with its id in place. Records an
  /// upsert unless an equal value was already stored.
  ///
  /// - Complexity: O(1) amortized.
  @inlinable
  public mutating func upsert(_ entity: Entity) {
    // NB: one hash lookup serves both paths: the defaulted subscript inserts the key if absent.
    let end = slots.count
    let position = Self.claim(&positions[entity.id, default: end])
    if position == end {
      slots.append(entity)
    } else {
      if slots[position] == entity { return }
      slots[position] = entity
    }
    recorded.recordUpsert(entity.id)
  }

  @inlinable
  static func claim(_ position: inout Int) -> Int {
    position
  }

  /// Upserts every entity, in order.
  ///
  /// - Complexity: O(*m*) amortized, where *m* is the number of entities given.
  public mutating func upsert(contentsOf entities: some Sequence<Entity>) {
    for entity in entities { upsert(entity) }
  }

  /// Deletes the entity with this id and records the deletion. Does nothing for an unknown id.
  ///
  /// - Returns: The deleted entity, if there was one.
  /// - Complexity: O(1) amortized.
  @inlinable @discardableResult
  public mutating func remove(_ id: ID) -> Entity? {
    guard let position = positions.removeValue(forKey: id) else { return nil }
    let removed = slots[position]
    slots[position] = nil
    recorded.recordDeletion(id)
    compactIfSparse()
    return removed
  }

  /// Deletes the entities with these ids, recording each deletion.
  ///
  /// - Complexity: O(*m*) amortized, where *m* is the number of ids given.
  public mutating func remove(ids: some Sequence<ID>) {
    for id in ids { remove(id) }
  }

  /// Mutates the entity with this id in place. Records an upsert only if the value changed;
  /// does nothing for an unknown id.
  ///
  /// - Precondition: `transform` keeps the entity's id.
  /// - Complexity: O(1) plus the cost of `transform` and one comparison.
  @inlinable
  public mutating func modify(_ id: ID, _ transform: (inout Entity) throws -> Void) rethrows {
    guard let position = positions[id], var entity = slots[position] else { return }
    try transform(&entity)
    precondition(entity.id == id, "modify changed the id of \(id) to \(entity.id)")
    if slots[position] == entity { return }
    slots[position] = entity
    recorded.recordUpsert(id)
  }

  /// Deletes every entity that satisfies `shouldBeRemoved`, recording each deletion.
  ///
  /// - Complexity: O(*n*).
  public mutating func removeAll(where shouldBeRemoved: (Entity) throws -> Bool) rethrows {
    var kept: [Entity?] = []
    kept.reserveCapacity(slots.count)
    for case let entity? in slots {
      if try shouldBeRemoved(entity) {
        positions[entity.id] = nil
        recorded.recordDeletion(entity.id)
      } else {
        kept.append(entity)
      }
    }
    replaceSlots(with: kept)
  }

  /// Sorts the entities, recording an upsert for each entity whose position changed.
  ///
  /// - Complexity: O(*n* log *n*).
  public mutating func sort(by areInIncreasingOrder: (Entity, Entity) throws -> Bool) rethrows {
    let before = ids
    var sorted = values
    try sorted.sort(by: areInIncreasingOrder)
    for (offset, entity) in sorted.enumerated() where before[offset] != entity.id {
      recorded.recordUpsert(entity.id)
    }
    replaceSlots(with: sorted)
  }

  // MARK: - Changes

  /// Forgets the recorded changes.
  public mutating func resetChanges() {
    recorded = ChangeSet()
  }

  /// Returns the recorded changes and forgets them, in one step (for persistence).
  ///
  /// - Complexity: O(1): the change set is moved out, not copied.
  public mutating func drainChanges() -> ChangeSet<ID> {
    defer { recorded = ChangeSet() }
    return recorded
  }

  // MARK: - Bulk replacement

  /// Merges entities loaded from elsewhere without recording changes (hydration). Entities only
  /// in `other` are appended in `other`'s order; for an id in both, `combine` returns the value
  /// to keep.
  ///
  /// - Parameters:
  ///   - other: The entities to merge in.
  ///   - combine: Given the entity already stored (`existing`) and the one from `other`
  ///     (`incoming`), returns the one to keep. It must keep the id.
  /// - Complexity: O(*m*), where *m* is the number of entities in `other`.
  public mutating func merge(
    from other: EntityStore,
    uniquingIDsWith combine: (_ existing: Entity, _ incoming: Entity) throws -> Entity
  ) rethrows {
    for incoming in other {
      if let position = positions[incoming.id], let existing = slots[position] {
        let kept = try combine(existing, incoming)
        precondition(kept.id == incoming.id, "merge kept \(kept.id) for id \(incoming.id)")
        slots[position] = kept
      } else {
        store(incoming)
      }
    }
  }

  /// Replaces the contents with `source`'s, recording the difference: a deletion for every id
  /// missing from `source`, an upsert for every id new or changed in it. Used by undo/redo and
  /// by "revert to saved".
  ///
  /// - Complexity: O(*n* + *m*), the sizes of the two stores.
  public mutating func restore(from source: EntityStore) {
    for case let entity? in slots where !source.contains(entity.id) {
      recorded.recordDeletion(entity.id)
    }
    for entity in source where self[entity.id] != entity {
      recorded.recordUpsert(entity.id)
    }
    slots = source.slots
    positions = source.positions
    compactIfSparse()
  }

  // MARK: - Storage

  /// Appends or replaces without recording a change.
  @inlinable
  mutating func store(_ entity: Entity) {
    if let position = positions[entity.id] {
      slots[position] = entity
    } else {
      positions[entity.id] = slots.count
      slots.append(entity)
    }
  }

  /// Compacts once tombstones outnumber live entities, so that deletion stays O(1) amortized
  /// and iteration stays within a constant factor of a dense array.
  @inlinable
  mutating func compactIfSparse() {
    let tombstones = slots.count - positions.count
    guard tombstones > 16, tombstones > positions.count else { return }
    compact()
  }

  /// Removes every tombstone, updating the positions of the entities that moved.
  ///
  /// - Complexity: O(*n*).
  @inlinable
  public mutating func compact() {
    guard slots.count != positions.count else { return }
    replaceSlots(with: slots.filter { $0 != nil })
  }

  /// Installs dense `newSlots` (no tombstones) and re-indexes the entities whose slot changed.
  @usableFromInline
  mutating func replaceSlots(with newSlots: [Entity?]) {
    for (offset, entity) in newSlots.enumerated() {
      guard let entity else { preconditionFailure("replaceSlots given a tombstone at \(offset)") }
      if positions[entity.id] != offset { positions[entity.id] = offset }
    }
    slots = newSlots
  }
}
