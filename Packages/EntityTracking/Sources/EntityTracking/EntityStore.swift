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
  /// Per slot: upserted since the changes were last cleared. A flag, not a hashed id, so that
  /// recording an upsert costs no hashing; the id set is built when the changes are read.
  @usableFromInline var upsertedSlots: [Bool]
  /// The slots whose flag is set, in the order they were set (so reading changes is O(changes)).
  @usableFromInline var upsertedSlotList: [Int]
  /// Ids deleted since the changes were last cleared and not re-inserted since.
  @usableFromInline var deletedIDs: Set<ID>
  /// `deletedIDs` in the order the ids were deleted; may also hold ids re-inserted since, which
  /// readers skip (pruned when stale entries outnumber live ones).
  @usableFromInline var deletionLog: [ID]

  /// An empty store.
  @inlinable
  public init() {
    slots = []
    positions = [:]
    upsertedSlots = []
    upsertedSlotList = []
    deletedIDs = []
    deletionLog = []
  }

  /// A store holding `entities` in order, recording no changes (hydration). A later entity with
  /// the id of an earlier one replaces it in place.
  ///
  /// - Complexity: O(*n*), where *n* is the number of entities.
  @inlinable
  public init(_ entities: some Sequence<Entity>) {
    self.init()
    slots.reserveCapacity(entities.underestimatedCount)
    upsertedSlots.reserveCapacity(entities.underestimatedCount)
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

  /// Appends or replaces without recording a change.
  @inlinable
  mutating func store(_ entity: Entity) {
    if let position = positions[entity.id] {
      slots[position] = entity
    } else {
      positions[entity.id] = slots.count
      slots.append(entity)
      upsertedSlots.append(false)
    }
  }
}
