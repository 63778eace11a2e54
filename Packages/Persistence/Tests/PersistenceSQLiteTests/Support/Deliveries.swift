import Persistence
import Synchronization

/// Collects what a feed delivers, for a test to take after a poll.
final class Deliveries<Entity: Identifiable & Equatable & Sendable>: Sendable
where Entity.ID: Sendable {
  private let delivered = Mutex<[RemoteChanges<Entity>]>([])

  func yield(_ changes: RemoteChanges<Entity>) {
    delivered.withLock { $0.append(changes) }
  }

  /// What was delivered since the last call.
  func drain() -> [RemoteChanges<Entity>] {
    delivered.withLock { delivered in
      defer { delivered.removeAll() }
      return delivered
    }
  }
}
