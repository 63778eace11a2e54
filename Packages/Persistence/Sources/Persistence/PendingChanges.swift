import EntityTracking

/// One writer's changes waiting for a flush, coalesced by id: the last operation on an id wins
/// and ids keep the order they were first changed in.
///
/// A write also remembers when its entity was last placed at the end of the store (see
/// ``EntityChanges/placedLast``): a sequence number from the writer, increasing across batches,
/// so that a failed batch put back under newer changes keeps the order of the moves.
///
/// NB: the changes are two arrays in first-change order and an index from id to offset, not an
/// `OrderedDictionary`: this code runs unspecialized (the entity type is the app's), where every
/// call into a generic collection's method looks its metadata up. A recorded change costs one
/// hashing of its id and two appends.
struct PendingChanges<Entity: Identifiable & Sendable>: Sendable where Entity.ID: Sendable {
  enum Change: Sendable {
    /// A write; `placed` is when the entity was last placed at the end of the store, if it
    /// was since the last flush.
    case write(Entity, placed: Int?)
    case delete
  }

  /// Every id changed, once, in first-change order.
  private(set) var ids: [Entity.ID] = []
  /// The last change of `ids[i]`, at `i`.
  private(set) var changes: [Change] = []
  /// The offset of every id in `ids`.
  private var offsets: [Entity.ID: Int] = [:]

  var count: Int { ids.count }
  var isEmpty: Bool { ids.isEmpty }

  /// The offset of `id`, which is appended (with a placeholder change, `.delete`) when it is
  /// new: one hashing of the id either way.
  private mutating func offset(of id: Entity.ID) -> Int {
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
  private static func read(_ value: inout Int) -> Int { value }

  /// Records one drain: its deletions, then its upserts (an id is never in both).
  ///
  /// - Parameters:
  ///   - upserts: The entities written.
  ///   - deletions: The ids deleted.
  ///   - placedLast: The offsets in `upserts` of the entities now last in the store, in store
  ///     order.
  ///   - placement: The writer's next placement number; advanced by `placedLast.count`.
  /// - Complexity: O(*c*), where *c* is the number of changes drained.
  mutating func record(
    upserts: [Entity], deletions: [Entity.ID], placedLast: [Int] = [], placement: inout Int
  ) {
    let capacity = ids.count + upserts.count + deletions.count
    ids.reserveCapacity(capacity)
    changes.reserveCapacity(capacity)
    offsets.reserveCapacity(capacity)
    for id in deletions {
      let offset = offset(of: id)
      changes[offset] = .delete
    }
    var upsertOffsets: [Int] = []
    if !placedLast.isEmpty { upsertOffsets.reserveCapacity(upserts.count) }
    for entity in upserts {
      let offset = offset(of: entity.id)
      // NB: an entity changed in place keeps the place it was moved to earlier in the window.
      if case .write(_, let placed) = changes[offset] {
        changes[offset] = .write(entity, placed: placed)
      } else {
        changes[offset] = .write(entity, placed: nil)
      }
      if !placedLast.isEmpty { upsertOffsets.append(offset) }
    }
    for index in placedLast {
      let offset = upsertOffsets[index]
      guard case .write(let entity, _) = changes[offset] else { continue }
      changes[offset] = .write(entity, placed: placement)
      placement += 1
    }
  }

  /// Puts a batch that failed to persist back, underneath the changes recorded since it was
  /// taken: a newer change to an id wins, and the failed ids keep their earlier place (in the
  /// batch, and at the end of the store when they had moved there).
  ///
  /// - Complexity: O(*f* + *c*), the changes of the failed batch and those recorded since.
  mutating func restore(failed: PendingChanges) {
    var merged = failed
    merged.ids.reserveCapacity(failed.count + count)
    merged.changes.reserveCapacity(failed.count + count)
    for (id, change) in zip(ids, changes) {
      let offset = merged.offset(of: id)
      if case .write(let entity, nil) = change, case .write(_, let placed?) = merged.changes[offset]
      {
        merged.changes[offset] = .write(entity, placed: placed)
      } else {
        merged.changes[offset] = change
      }
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

  /// The writes and the deletions, each in first-change order, and the ids placed last in the
  /// order they were placed.
  ///
  /// - Complexity: O(*c*), or O(*c* + *p* log *p*) when the *p* ids placed last were placed in
  ///   another order than first changed (a failed batch put back under newer moves).
  var split: EntityChanges<Entity> {
    var writes: [Entity] = []
    var deletions: [Entity.ID] = []
    var placed: [(order: Int, write: Int)] = []
    writes.reserveCapacity(changes.count)
    var isSorted = true
    // NB: indices, not `enumerated()`: run unspecialized, the enumerated iterator looked up its
    // generic metadata for every change.
    for offset in changes.indices {
      switch changes[offset] {
      case .write(let entity, let order):
        if let order {
          if let previous = placed.last, previous.order > order { isSorted = false }
          placed.append((order, writes.count))
        }
        writes.append(entity)
      case .delete: deletions.append(ids[offset])
      }
    }
    if !isSorted { placed.sort { $0.order < $1.order } }
    let placedOffsets = placed.map(\.write)
    return EntityChanges(
      writes: writes, deletions: deletions, placedLast: placedOffsets.map { writes[$0].id },
      placedLastOffsets: placedOffsets)
  }
}
