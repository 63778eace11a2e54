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

  /// Ids changed since the last ``resetChanges()`` or ``drainChanges()``.
  ///
  /// - Complexity: O(*c*), where *c* is the number of changes.
  @inlinable
  public var changes: ChangeSet<ID> {
    var upserts = Set<ID>(minimumCapacity: upsertedSlotList.count)
    for slot in upsertedSlotList {
      // A flagged slot deleted since holds a tombstone: its id is in `deletedIDs` instead.
      if let entity = slots[slot] { upserts.insert(entity.id) }
    }
    return ChangeSet(upserts: upserts, deletions: deletedIDs)
  }

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
      upsertedSlots.append(false)
    } else {
      if slots[position] == entity { return }
      slots[position] = entity
    }
    recordUpsert(entity.id, at: position)
  }

  @inlinable
  mutating func recordUpsert(_ id: ID, at slot: Int) {
    if !deletedIDs.isEmpty { deletedIDs.remove(id) }
    if !upsertedSlots[slot] {
      upsertedSlots[slot] = true
      upsertedSlotList.append(slot)
    }
  }

  @inlinable
  mutating func recordDeletion(_ id: ID) {
    // NB: an upsert flag left on the emptied slot is skipped when changes are read.
    guard deletedIDs.insert(id).inserted else { return }
    deletionLog.append(id)
    if deletionLog.count > 2 * deletedIDs.count + 32 { pruneDeletionLog() }
  }

  /// Drops the ids re-inserted since their deletion, so the log stays O(deletions).
  @usableFromInline
  mutating func pruneDeletionLog() {
    deletionLog = orderedDeletions
  }

  /// `deletedIDs` in deletion order, each once.
  @inlinable
  var orderedDeletions: [ID] {
    var seen = Set<ID>(minimumCapacity: deletedIDs.count)
    var ordered: [ID] = []
    ordered.reserveCapacity(deletedIDs.count)
    for id in deletionLog where deletedIDs.contains(id) && seen.insert(id).inserted {
      ordered.append(id)
    }
    return ordered
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
    recordDeletion(id)
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
    recordUpsert(id, at: position)
  }

  /// Deletes every entity that satisfies `shouldBeRemoved`, recording each deletion.
  ///
  /// - Complexity: O(*n*).
  public mutating func removeAll(where shouldBeRemoved: (Entity) throws -> Bool) rethrows {
    var kept: [(entity: Entity, upserted: Bool)] = []
    kept.reserveCapacity(slots.count)
    for (slot, entity) in slots.enumerated() {
      guard let entity else { continue }
      if try shouldBeRemoved(entity) {
        positions[entity.id] = nil
        recordDeletion(entity.id)
      } else {
        kept.append((entity, upsertedSlots[slot]))
      }
    }
    replaceSlots(with: kept)
  }

  /// Sorts the entities, recording an upsert for each entity whose position changed.
  ///
  /// - Complexity: O(*n* log *n*).
  public mutating func sort(by areInIncreasingOrder: (Entity, Entity) throws -> Bool) rethrows {
    let before = liveSlots
    var sorted = before
    try sorted.sort { try areInIncreasingOrder($0.entity, $1.entity) }
    for offset in sorted.indices where before[offset].entity.id != sorted[offset].entity.id {
      sorted[offset].upserted = true
    }
    replaceSlots(with: sorted)
  }

  // MARK: - Changes

  /// Forgets the recorded changes.
  ///
  /// - Complexity: O(*c*), where *c* is the number of changes.
  @inlinable
  public mutating func resetChanges() {
    for slot in upsertedSlotList where slot < upsertedSlots.count { upsertedSlots[slot] = false }
    upsertedSlotList.removeAll(keepingCapacity: true)
    deletedIDs = []
    deletionLog.removeAll(keepingCapacity: true)
  }

  /// Whether any change was recorded since the last ``resetChanges()`` or drain.
  ///
  /// - Complexity: O(1).
  @inlinable
  public var hasChanges: Bool { !upsertedSlotList.isEmpty || !deletedIDs.isEmpty }

  /// Returns the recorded changes and forgets them, in one step (for persistence).
  ///
  /// - Complexity: O(*c*), where *c* is the number of changes; never O(*n*).
  @inlinable
  public mutating func drainChanges() -> ChangeSet<ID> {
    defer { resetChanges() }
    return changes
  }

  /// Returns the current value of every upserted entity and every deleted id, each in the order
  /// they were first changed since the last drain, and forgets the changes. This is the drain
  /// persistence uses: its writes come out in a deterministic order.
  ///
  /// - Complexity: O(*c*), where *c* is the number of changes; never O(*n*).
  @inlinable
  public mutating func drainOrderedChanges() -> (upserts: [Entity], deletions: [ID]) {
    defer { resetChanges() }
    var upserts: [Entity] = []
    upserts.reserveCapacity(upsertedSlotList.count)
    for slot in upsertedSlotList {
      if let entity = slots[slot] { upserts.append(entity) }
    }
    return (upserts, orderedDeletions)
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
      recordDeletion(entity.id)
    }
    let pending = changes.upserts
    var restored: [(entity: Entity, upserted: Bool)] = []
    restored.reserveCapacity(source.count)
    for entity in source {
      let changed = self[entity.id] != entity
      if changed, !deletedIDs.isEmpty { deletedIDs.remove(entity.id) }
      restored.append((entity, changed || pending.contains(entity.id)))
    }
    positions = [:]
    replaceSlots(with: restored)
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
      upsertedSlots.append(false)
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
    replaceSlots(with: liveSlots)
  }

  /// The live entities in order, each with its upsert flag.
  @usableFromInline
  var liveSlots: [(entity: Entity, upserted: Bool)] {
    var live: [(entity: Entity, upserted: Bool)] = []
    live.reserveCapacity(positions.count)
    for (slot, entity) in slots.enumerated() {
      if let entity { live.append((entity, upsertedSlots[slot])) }
    }
    return live
  }

  /// Installs dense `newSlots` (no tombstones) and re-indexes the entities whose slot changed.
  /// Upserts recorded before keep their first-change order; newly flagged ones follow in slot
  /// order.
  @usableFromInline
  mutating func replaceSlots(with live: [(entity: Entity, upserted: Bool)]) {
    let previouslyUpserted = upsertedSlotList.compactMap { slots[$0]?.id }
    var newSlots: [Entity?] = []
    newSlots.reserveCapacity(live.count)
    upsertedSlots = []
    upsertedSlots.reserveCapacity(live.count)
    for (offset, (entity, upserted)) in live.enumerated() {
      if positions[entity.id] != offset { positions[entity.id] = offset }
      newSlots.append(entity)
      upsertedSlots.append(upserted)
    }
    slots = newSlots
    var listed = [Bool](repeating: false, count: live.count)
    upsertedSlotList = []
    for id in previouslyUpserted {
      guard let slot = positions[id], upsertedSlots[slot], !listed[slot] else { continue }
      listed[slot] = true
      upsertedSlotList.append(slot)
    }
    for slot in upsertedSlots.indices where upsertedSlots[slot] && !listed[slot] {
      upsertedSlotList.append(slot)
    }
  }
}
