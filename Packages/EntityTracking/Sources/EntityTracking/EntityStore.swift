/// An ordered, keyed, change-tracked collection of entities: a dictionary that iterates in
/// insertion order and records which ids changed.
///
/// ```swift
/// var cards = EntityStore<Card>()
/// cards[card.id] = card                          // insert or replace: records an upsert
/// cards.modify(card.id) { $0.title = "New" }     // records an upsert if the value changed
/// cards[card.id] = nil                           // delete: records a deletion
/// let changes = cards.drainChanges()             // hand them to persistence, clear them
/// for change in changes {                        // in the order the ids first changed
///   switch change {
///   case .upsert(let id): save(cards[id]!)       // an upserted id is always stored
///   case .deletion(let id): delete(id)
///   }
/// }
/// ```
///
/// ## Changes
///
/// The store records one ``ChangeSet``: every id changed since the last drain, once, in the order
/// it first changed, with its last operation. Deleting then re-inserting an id records an upsert
/// only; inserting then deleting records a deletion only; storing a value equal to the stored one
/// records nothing. Every id the change set upserts is in the store, so its current value is
/// `store[id]`. Reading the changes costs O(*c*) for *c* changed ids, never O(*n*).
///
/// ## Deletion and the collection it is
///
/// Deletion by id is O(1) amortized: a deleted entity leaves a tombstone in the storage, and the
/// storage is compacted (in O(*n*)) once tombstones outnumber live entities and exceed 16, so a
/// store of *n* entities holds at most max(16, *n*) tombstones.
///
/// Because of the tombstones, an entity's offset from the start cannot be computed in O(1), so
/// the store is a `BidirectionalCollection`, not a `RandomAccessCollection`: `startIndex`,
/// `endIndex`, `count`, `first`, `last` and subscripting by index are O(1), stepping an index
/// skips tombstones (O(1) amortized over a traversal), and `index(_:offsetBy:)` and
/// `distance(from:to:)` are O(*k*) for *k* slots crossed, O(1) when no tombstone is left (after
/// ``compact()``). Iteration is a plain pass over the storage, as fast as over an optional array.
/// For random access by offset, take ``values`` (an `Array`, in O(*n*)).
///
/// Two stores are equal when they hold equal entities in the same order; recorded changes are
/// ignored.
public struct EntityStore<Entity: Identifiable & Equatable & Sendable>: Sendable
where Entity.ID: Sendable {
  /// The type of an entity's id.
  public typealias ID = Entity.ID

  // MARK: - Storage

  /// Entities in insertion order; `nil` marks a deleted entity not yet compacted away (a
  /// tombstone). The last slot, if any, is live: deleting the last entity drops the tombstones
  /// at the end.
  @usableFromInline var slots: [Entity?]
  /// The slot of every live entity.
  @usableFromInline var positions: [ID: Int]
  /// The first live slot, or `slots.count` when there is none (then `slots` is empty).
  @usableFromInline var firstLiveSlot: Int
  /// Every id changed since the changes were last reset, once, in first-change order: the slot
  /// of its entity when its last change is an upsert (the id is the entity's), or `-1` when it
  /// is a deletion (the id is the one `deletionLogIndex` maps to this entry). Recording an
  /// upsert appends an `Int`, not a copy of the id.
  @usableFromInline var changeLog: [Int]
  /// Per slot: the index in `changeLog` of the upsert whose entity is in the slot, or `-1`. A
  /// repeated upsert finds its entry here, with no hashing.
  @usableFromInline var logIndexBySlot: [Int]
  /// The index in `changeLog` of every id whose last change is a deletion.
  @usableFromInline var deletionLogIndex: [ID: Int]

  /// An empty store.
  @inlinable
  public init() {
    slots = []
    positions = [:]
    firstLiveSlot = 0
    changeLog = []
    logIndexBySlot = []
    deletionLogIndex = [:]
  }

  /// A store holding `entities` in order, recording no changes (hydration). A later entity with
  /// the id of an earlier one replaces it in place.
  ///
  /// - Parameter entities: The entities, in the order to keep.
  /// - Complexity: O(*m*), where *m* is the number of entities given.
  @inlinable
  public init(_ entities: some Sequence<Entity>) {
    self.init()
    let count = entities.underestimatedCount
    slots.reserveCapacity(count)
    logIndexBySlot.reserveCapacity(count)
    // NB: room made at once: growing the index rehashes every id, which a hydration run
    // unspecialized (the store's entity is the app's) pays over a thousand instructions an id for.
    positions.reserveCapacity(count)
    for entity in entities { store(entity) }
  }

  // MARK: - Reading

  /// The number of entities.
  public var count: Int { positions.count }

  /// Whether the store holds no entity.
  public var isEmpty: Bool { positions.isEmpty }

  /// Whether an entity with this id is stored.
  ///
  /// - Parameter id: The id to look up.
  /// - Returns: `true` if an entity with `id` is stored.
  @inlinable
  public func contains(_ id: ID) -> Bool {
    positions[id] != nil
  }

  /// The entities in insertion order.
  ///
  /// - Complexity: O(*n*), where *n* is the number of entities.
  @inlinable
  public var values: [Entity] {
    slots.compactMap { $0 }
  }

  /// The ids in insertion order.
  ///
  /// - Complexity: O(*n*), where *n* is the number of entities.
  @inlinable
  public var ids: [ID] {
    slots.compactMap { $0?.id }
  }

  /// The entity with this id; setting a value inserts (appends) or replaces it in place, and
  /// setting `nil` deletes it. Each recorded in ``changes`` unless nothing changed.
  ///
  /// - Parameter id: The id of the entity.
  /// - Precondition: A value set under `id` has that id.
  /// - Complexity: Reading is O(1); setting is O(1) amortized.
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
      // NB: an empty store has no slot, so `firstLiveSlot` already names the one appended.
      positions[entity.id] = slots.count
      slots.append(entity)
      logIndexBySlot.append(-1)
    }
  }
}
