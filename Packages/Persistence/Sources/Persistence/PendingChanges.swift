import EntityTracking

/// One writer's changes waiting for a flush, coalesced by id: the last operation on an id wins
/// and ids keep the order they were first changed in.
///
/// A write carries its entity's position in the store's order (see ``EntityChanges/positions``),
/// taken when it was drained.
///
/// NB: the changes are two arrays in first-change order and an index from id to offset, not an
/// `OrderedDictionary`: this code runs unspecialized (the entity type is the app's), where every
/// call into a generic collection's method looks its metadata up. A recorded change costs one
/// hashing of its id and two appends.
@usableFromInline
struct PendingChanges<Entity: Identifiable & Sendable>: Sendable where Entity.ID: Sendable {
  @usableFromInline
  enum Change: Sendable {
    /// A write, at the entity's position in the store's order.
    case write(Entity, position: Double)
    case delete
  }

  /// Every id changed, once, in first-change order.
  @usableFromInline private(set) var ids: [Entity.ID] = []
  /// The last change of `ids[i]`, at `i`.
  @usableFromInline private(set) var changes: [Change] = []
  /// The offset of every id in `ids`.
  @usableFromInline var offsets: [Entity.ID: Int] = [:]

  var count: Int { ids.count }
  var isEmpty: Bool { ids.isEmpty }

  /// The offset of `id`, which is appended (with a placeholder change, `.delete`) when it is
  /// new: one hashing of the id either way.
  @inlinable
  mutating func offset(of id: Entity.ID) -> Int {
    let end = ids.count
    let offset = Self.read(&offsets[id, default: end])
    if offset == end {
      ids.append(id)
      changes.append(.delete)
    }
    return offset
  }

  /// Reads a value through `inout`: with `Dictionary`'s `default:` subscript, inserts the
  /// default when the key is missing and returns the stored value, hashing once.
  @inlinable
  static func read(_ value: inout Int) -> Int { value }

  /// Records one drain: its deletions, then its upserts (an id is never in both).
  ///
  /// - Parameters:
  ///   - upserts: The entities written.
  ///   - positions: Their positions, at their offsets (empty: not tracked, all 0).
  ///   - deletions: The ids deleted.
  /// - Complexity: O(*c*), where *c* is the number of changes drained.
  @inlinable
  mutating func record(upserts: [Entity], positions: [Double], deletions: [Entity.ID]) {
    let capacity = ids.count + upserts.count + deletions.count
    // NB: the arrays grow by doubling, as appends grow them: reserved at each drain's exact
    // count, every drain of a large batch moved every change recorded before it.
    if changes.capacity < capacity {
      let grown = max(capacity, 2 * changes.capacity)
      ids.reserveCapacity(grown)
      changes.reserveCapacity(grown)
    }
    offsets.reserveCapacity(capacity)
    for id in deletions {
      let offset = offset(of: id)
      changes[offset] = .delete
    }
    let tracksPositions = !positions.isEmpty
    for index in upserts.indices {
      let entity = upserts[index]
      let offset = offset(of: entity.id)
      changes[offset] = .write(entity, position: tracksPositions ? positions[index] : 0)
    }
  }

  /// Puts a batch that failed to persist back, underneath the changes recorded since it was
  /// taken: a newer change to an id wins (with its position), and the failed ids keep their
  /// earlier place in the batch.
  ///
  /// - Complexity: O(*f* + *c*), the changes of the failed batch and those recorded since.
  mutating func restore(failed: PendingChanges) {
    var merged = failed
    merged.ids.reserveCapacity(failed.count + count)
    merged.changes.reserveCapacity(failed.count + count)
    for (id, change) in zip(ids, changes) {
      let offset = merged.offset(of: id)
      merged.changes[offset] = change
    }
    self = merged
  }

  /// Splits off the changes to the ids whose description is in `described`: returns them,
  /// in their order, and keeps the others (a rejected write set aside, say).
  ///
  /// - Complexity: O(*c*), the changes held.
  mutating func remove(described: Set<String>) -> PendingChanges {
    var kept = PendingChanges()
    var removed = PendingChanges()
    for (id, change) in zip(ids, changes) {
      if described.contains("\(id)") {
        removed.append(id, change)
      } else {
        kept.append(id, change)
      }
    }
    self = kept
    return removed
  }

  /// Removes the changes to `ids` (superseded by newer ones held elsewhere).
  ///
  /// - Complexity: O(*c* + *r*), the changes held and the ids.
  mutating func remove(ids removedIDs: some Sequence<Entity.ID>) {
    var removing = Set<Entity.ID>()
    for id in removedIDs where offsets[id] != nil { removing.insert(id) }
    guard !removing.isEmpty else { return }
    var kept = PendingChanges()
    for (id, change) in zip(ids, changes) where !removing.contains(id) { kept.append(id, change) }
    self = kept
  }

  private mutating func append(_ id: Entity.ID, _ change: Change) {
    offsets[id] = ids.count
    ids.append(id)
    changes.append(change)
  }

  /// The writes, at their positions, and the deletions, each in first-change order.
  ///
  /// - Parameter tracksPositions: Whether the positions are the store's (else they are left
  ///   out).
  /// - Complexity: O(*c*).
  func split(tracksPositions: Bool) -> EntityChanges<Entity> {
    var writes: [Entity] = []
    var positions: [Double] = []
    var deletions: [Entity.ID] = []
    writes.reserveCapacity(changes.count)
    if tracksPositions { positions.reserveCapacity(changes.count) }
    // NB: indices, not `enumerated()`: run unspecialized, the enumerated iterator looked up its
    // generic metadata for every change.
    for offset in changes.indices {
      switch changes[offset] {
      case .write(let entity, let position):
        writes.append(entity)
        if tracksPositions { positions.append(position) }
      case .delete: deletions.append(ids[offset])
      }
    }
    return EntityChanges(writes: writes, positions: positions, deletions: deletions)
  }
}
