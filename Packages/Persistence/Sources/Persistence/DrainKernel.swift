public import EntityTracking

/// The work a writer's drain does on each change: taking the changes from the store, and
/// recording the writes pending.
///
/// NB: closures made where the kernel is made. A writer made by an inlinable initializer
/// (``StateWriter/init(keyPath:backend:versions:key:batch:)``) makes its kernel in the app's
/// module, for the app's entity: the closures are specialized, and each change costs a hashing
/// of its id. The writer itself is generic, called through ``WriterBase``: run there, the same
/// work looked up generic metadata for every dictionary and array operation.
@usableFromInline
struct DrainKernel<State, Entity: Identifiable & Equatable & Sendable> where Entity.ID: Sendable {
  /// What one drain took from the store.
  @usableFromInline
  struct Drained {
    /// The ids changed, in order.
    @usableFromInline var changes: ChangeSet<Entity.ID>
    /// The store, after the drain.
    @usableFromInline var store: EntityStore<Entity>
    /// The entities upserted, in the order of `changes`.
    @usableFromInline var writes: [Entity]
    /// The ids deleted, in the order of `changes`.
    @usableFromInline var deletions: [Entity.ID]

    @inlinable
    init(
      changes: ChangeSet<Entity.ID>, store: EntityStore<Entity>, writes: [Entity],
      deletions: [Entity.ID]
    ) {
      self.changes = changes
      self.store = store
      self.writes = writes
      self.deletions = deletions
    }
  }

  /// Drains the store's changes; `nil` when it has none (the state is then not written).
  @usableFromInline let take: @MainActor (inout State) -> Drained?
  /// Records a drain's writes (at their positions, if any) and deletions as pending.
  @usableFromInline let record:
    @MainActor (
      _ pending: inout PendingChanges<Entity>, _ writes: [Entity], _ positions: [Double],
      _ deletions: [Entity.ID]
    ) -> Void

  /// - Parameter keyPath: Where the store lives in the state.
  @inlinable
  @MainActor
  init(_ keyPath: WritableKeyPath<State, EntityStore<Entity>>) {
    take = { state in
      // NB: read first, so that a store with nothing to drain is not written back (no copy,
      // no observation notification).
      guard state[keyPath: keyPath].hasChanges else { return nil }
      let changes = state[keyPath: keyPath].drainChanges()
      let store = state[keyPath: keyPath]
      var writes: [Entity] = []
      var deletions: [Entity.ID] = []
      writes.reserveCapacity(changes.count)
      for change in changes {
        switch change {
        case .upsert(let id):
          // NB: EntityStore guarantees that every id its change set upserts is stored.
          guard let entity = store[id] else {
            preconditionFailure("EntityStore drained an upsert of \(id), which it does not hold")
          }
          writes.append(entity)
        case .deletion(let id):
          deletions.append(id)
        }
      }
      return Drained(changes: changes, store: store, writes: writes, deletions: deletions)
    }
    record = { pending, writes, positions, deletions in
      pending.record(upserts: writes, positions: positions, deletions: deletions)
    }
  }
}
