import EntityTracking
import OrderedCollections

/// One writer's changes waiting for a flush, coalesced by id: the last operation on an id wins
/// and ids keep the order they were first changed in.
struct PendingChanges<Entity: Identifiable & Sendable>: Sendable where Entity.ID: Sendable {
  enum Change: Sendable {
    case write(Entity)
    case delete
  }

  private(set) var changes: OrderedDictionary<Entity.ID, Change> = [:]

  var count: Int { changes.count }
  var isEmpty: Bool { changes.isEmpty }

  /// Records one drain: its deletions, then its upserts (an id is never in both).
  ///
  /// - Complexity: O(*c*), where *c* is the number of changes drained.
  mutating func record(upserts: [Entity], deletions: [Entity.ID]) {
    changes.reserveCapacity(changes.count + upserts.count + deletions.count)
    for id in deletions { changes[id] = .delete }
    for entity in upserts { changes[entity.id] = .write(entity) }
  }

  /// Puts a batch that failed to persist back, underneath the changes recorded since it was
  /// taken: a newer change to an id wins, and the failed ids keep their earlier place.
  mutating func restore(failed: PendingChanges) {
    var merged = failed
    for (id, change) in changes { merged.changes[id] = change }
    self = merged
  }

  /// The writes and the deletions, each in first-change order.
  var split: (writes: [Entity], deletions: [Entity.ID]) {
    var writes: [Entity] = []
    var deletions: [Entity.ID] = []
    writes.reserveCapacity(changes.count)
    for (id, change) in changes {
      switch change {
      case .write(let entity): writes.append(entity)
      case .delete: deletions.append(id)
      }
    }
    return (writes, deletions)
  }
}
