import EntityTracking
import OrderedCollections

/// One writer's changes waiting for a flush, coalesced by id: the last operation on an id wins
/// and ids keep the order they were first changed in.
///
/// A write also remembers when its entity was last placed at the end of the store (see
/// ``EntityChanges/placedLast``): a sequence number from the writer, increasing across batches,
/// so that a failed batch put back under newer changes keeps the order of the moves.
struct PendingChanges<Entity: Identifiable & Sendable>: Sendable where Entity.ID: Sendable {
  enum Change: Sendable {
    /// A write; `placed` is when the entity was last placed at the end of the store, if it
    /// was since the last flush.
    case write(Entity, placed: Int?)
    case delete
  }

  private(set) var changes: OrderedDictionary<Entity.ID, Change> = [:]

  var count: Int { changes.count }
  var isEmpty: Bool { changes.isEmpty }

  /// Records one drain: its deletions, then its upserts (an id is never in both).
  ///
  /// - Parameters:
  ///   - upserts: The entities written.
  ///   - deletions: The ids deleted.
  ///   - placedLast: The ids among `upserts` now last in the store, in store order.
  ///   - placement: The writer's next placement number; advanced by `placedLast.count`.
  /// - Complexity: O(*c*), where *c* is the number of changes drained.
  mutating func record(
    upserts: [Entity], deletions: [Entity.ID], placedLast: [Entity.ID] = [],
    placement: inout Int
  ) {
    changes.reserveCapacity(changes.count + upserts.count + deletions.count)
    for id in deletions { changes[id] = .delete }
    for entity in upserts {
      // NB: an entity changed in place keeps the place it was moved to earlier in the window.
      if case .write(_, let placed)? = changes[entity.id] {
        changes[entity.id] = .write(entity, placed: placed)
      } else {
        changes[entity.id] = .write(entity, placed: nil)
      }
    }
    for id in placedLast {
      guard case .write(let entity, _)? = changes[id] else { continue }
      changes[id] = .write(entity, placed: placement)
      placement += 1
    }
  }

  /// Puts a batch that failed to persist back, underneath the changes recorded since it was
  /// taken: a newer change to an id wins, and the failed ids keep their earlier place (in the
  /// batch, and at the end of the store when they had moved there).
  mutating func restore(failed: PendingChanges) {
    var merged = failed
    for (id, change) in changes {
      if case .write(let entity, nil) = change, case .write(_, let placed?)? = merged.changes[id] {
        merged.changes[id] = .write(entity, placed: placed)
      } else {
        merged.changes[id] = change
      }
    }
    self = merged
  }

  /// The writes and the deletions, each in first-change order, and the ids placed last in the
  /// order they were placed.
  ///
  /// - Complexity: O(*c* + *p* log *p*), where *p* is the number of ids placed last.
  var split: EntityChanges<Entity> {
    var writes: [Entity] = []
    var deletions: [Entity.ID] = []
    var placed: [(order: Int, id: Entity.ID)] = []
    writes.reserveCapacity(changes.count)
    for (id, change) in changes {
      switch change {
      case .write(let entity, let order):
        writes.append(entity)
        if let order { placed.append((order, id)) }
      case .delete: deletions.append(id)
      }
    }
    placed.sort { $0.order < $1.order }
    return EntityChanges(writes: writes, deletions: deletions, placedLast: placed.map(\.id))
  }
}
