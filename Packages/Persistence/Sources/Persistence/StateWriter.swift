public import EntityTracking

/// Drains one `EntityStore` of the state after each reduce and holds its changes, coalesced by
/// id, until a flush hands them to `persist`.
///
/// ```swift
/// StateWriter(keyPath: \AppState.items) { writes, deletions in
///   try await itemDB.upsert(writes)
///   try await itemDB.delete(ids: deletions)
/// }
/// ```
///
/// The last operation on an id wins across drains: an entity deleted and then re-inserted before
/// the flush is one write and no deletion. `writes` and `deletions` come in the order their ids
/// were first changed.
@MainActor
public final class StateWriter<State> {
  private let base: any WriterBase<State>

  /// Creates a writer for the `EntityStore` at `keyPath`.
  ///
  /// - Parameters:
  ///   - keyPath: Where the store lives in the state.
  ///   - persist: Stores the current value of each written entity and removes each deleted id.
  ///     When it throws, the batch stays pending and is retried.
  public init<Entity>(
    keyPath: WritableKeyPath<State, EntityStore<Entity>>,
    persist: @escaping @Sendable (_ writes: [Entity], _ deletions: [Entity.ID]) async throws -> Void
  ) {
    base = EntityWriter(
      keyPath: keyPath, kernel: DrainKernel(keyPath), placer: nil,
      output: .persist { changes in try await persist(changes.writes, changes.deletions) })
  }

  /// Creates a writer for the `EntityStore` at `keyPath` whose `persist` also learns each
  /// written entity's position in the store's order (``EntityChanges/positions``), so that it
  /// can store the order: a store saved, then loaded in increasing position, is equal.
  ///
  /// The writer knows the positions it gave since it was made; to keep them across launches,
  /// give the loaded ones with ``init(keyPath:backend:versions:key:batch:)``'s `versions`.
  ///
  /// - Parameters:
  ///   - keyPath: Where the store lives in the state.
  ///   - persistChanges: Stores the changes. When it throws, the batch stays pending and is
  ///     retried.
  /// - Complexity: Each drain that writes also places its writes: O(*c*) for *c* changes in
  ///   the store's order (see ``EntityChanges``).
  public init<Entity>(
    keyPath: WritableKeyPath<State, EntityStore<Entity>>,
    persistChanges: @escaping @Sendable (EntityChanges<Entity>) async throws -> Void
  ) {
    base = EntityWriter(
      keyPath: keyPath, kernel: DrainKernel(keyPath), placer: .own(),
      output: .persist(persistChanges))
  }

  /// Creates a writer for the `EntityStore` at `keyPath` that writes to `backend`: in a
  /// middleware on the same backend, its batch joins the flush's single transaction with the
  /// other writers' (see ``PersistenceBackend``); elsewhere it commits on its own.
  ///
  /// Its changes include ``EntityChanges/positions``, so that a backend can store the store's
  /// order (from the positions this writer gave since it was made; see
  /// ``init(keyPath:persistChanges:)``).
  ///
  /// - Parameters:
  ///   - keyPath: Where the store lives in the state.
  ///   - backend: The database the writer writes to.
  ///   - batch: Turns a batch of changes into the backend's form (for PersistenceSQLite, the
  ///     statements that write them to a table).
  ///   - drained: Called after each drain that found changes, with the ids drained, before
  ///     they wait for a flush: when each change was made. A backend with optimistic
  ///     concurrency records here the version each change was made against (PersistencePostgres
  ///     does), since the version it last saw may move on before the flush.
  /// - Complexity: Each drain that writes also places its writes, as with
  ///   ``init(keyPath:persistChanges:)``.
  public init<Entity, Backend: PersistenceBackend>(
    keyPath: WritableKeyPath<State, EntityStore<Entity>>,
    backend: Backend,
    batch: @escaping @Sendable (EntityChanges<Entity>) -> Backend.Batch,
    drained: (@MainActor (ChangeSet<Entity.ID>) -> Void)? = nil
  ) {
    base = EntityWriter(
      keyPath: keyPath, kernel: DrainKernel(keyPath), placer: .own(),
      output: .backend(
        stage: { BackendBatch(batch($0), for: backend) },
        commit: { try await backend.commit([batch($0)]) }),
      tracking: drained.map { drained in
        VersionTracking<Entity.ID>(drained: drained, discarded: { _ in })
      })
  }

  /// Creates a writer for the `EntityStore` at `keyPath` that writes to `backend`, each row
  /// at the version `versions` says this app last saw (optimistic concurrency: a row another
  /// writer changed meanwhile is a ``PersistenceConflict``), and at a position that keeps the
  /// store's order, from the positions `versions` holds (``VersionTable/positions``).
  /// PersistenceSQLite's and PersistencePostgres's `StateWriter(keyPath:table:database:)` are
  /// this writer.
  ///
  /// - Parameters:
  ///   - keyPath: Where the store lives in the state.
  ///   - backend: The database the writer writes to.
  ///   - versions: The versions of the table's rows: each drained change is recorded there
  ///     with the version it was made against, and forgotten if the app discards it.
  ///   - key: The table's key of an entity's id (the id itself, or its text).
  ///   - batch: Turns a batch of changes into the backend's form.
  /// - Complexity: Each drain also records its ids in `versions`: O(*c*).
  @inlinable
  public convenience init<Entity, Key, Backend: PersistenceBackend>(
    keyPath: WritableKeyPath<State, EntityStore<Entity>>,
    backend: Backend,
    versions: VersionTable<Key>,
    key: @escaping @Sendable (Entity.ID) -> Key,
    batch: @escaping @Sendable (EntityChanges<Entity>) -> Backend.Batch
  ) {
    // NB: inlinable: made in the app's module, for its entity, the drain's work on each
    // change (taking it from the store, placing it, recording it pending and queued) is
    // specialized; generic, it looked up generic metadata for each dictionary and array it
    // touched, more than the flush's SQLite work.
    self.init(
      writer: EntityWriter(
        keyPath: keyPath, kernel: DrainKernel(keyPath), placer: Placer(versions, key: key),
        output: .backend(
          stage: { BackendBatch(batch($0), for: backend) },
          commit: { try await backend.commit([batch($0)]) }),
        tracking: VersionTracking<Entity.ID>(
          drained: { changes in
            // NB: an array made by index, not a lazy map: iterating a `LazyMapSequence` of the
            // change set, unspecialized, looked its generic metadata up for every change.
            var keys: [Key] = []
            keys.reserveCapacity(changes.count)
            for index in changes.indices { keys.append(key(changes[index].id)) }
            versions.queued(keys)
          },
          discarded: { ids in versions.unqueued(ids.map(key)) })))
  }

  /// A writer with `writer`'s work.
  @usableFromInline
  init<Entity>(writer: EntityWriter<State, Entity>) {
    base = writer
  }

  /// The number of ids waiting for a flush.
  public var pendingCount: Int { base.pendingCount }

  /// Moves the store's recorded changes into this writer and clears them from the store.
  ///
  /// - Returns: Whether there was anything to drain.
  /// - Complexity: O(1) when nothing changed; otherwise O(*c*), the number of changes.
  @discardableResult
  public func drain(_ state: inout State) -> Bool {
    base.drain(&state)
  }

  /// Takes everything pending and returns the work that persists it, or `nil` when nothing is
  /// pending. If the work throws, the batch is put back (underneath newer changes) and the
  /// error is rethrown.
  ///
  /// - Returns: The work that hands the batch to `persist`, or `nil` when nothing is pending.
  /// - Complexity: O(*c*), where *c* is the number of pending changes.
  public func flush() -> (@Sendable () async throws -> Void)? {
    guard let batch = base.takeBatch() else { return nil }
    return {
      do {
        try await batch.persist()
      } catch {
        await batch.restore()
        throw error
      }
    }
  }

  func takeBatch() -> WriterBatch? {
    base.takeBatch()
  }

  func hasChanges(in state: State) -> Bool {
    base.hasChanges(in: state)
  }

  /// The writes the database refused, set aside until the app decides.
  var rejected: [RejectedWrite] { base.rejected }

  /// Puts the rejected writes whose ids are in `ids` (all when `nil`) back into the pending
  /// changes. Returns whether any was.
  func retryRejected(_ ids: Set<String>?) -> Bool { base.retryRejected(ids) }

  /// Forgets the rejected writes whose ids are in `ids` (all when `nil`).
  func discardRejected(_ ids: Set<String>?) { base.discardRejected(ids) }
}

/// What a writer tells a backend's version book: the ids drained (with the version each was
/// changed against) and the ids whose changes the app discarded.
@usableFromInline
struct VersionTracking<ID: Hashable & Sendable> {
  @usableFromInline let drained: @MainActor (ChangeSet<ID>) -> Void
  @usableFromInline let discarded: @MainActor ([ID]) -> Void

  @inlinable
  init(
    drained: @escaping @MainActor (ChangeSet<ID>) -> Void,
    discarded: @escaping @MainActor ([ID]) -> Void
  ) {
    self.drained = drained
    self.discarded = discarded
  }
}

/// Gives a drain's writes their positions in the store's order (see ``EntityChanges``), from
/// the positions a ``VersionTable`` holds.
@usableFromInline
struct Placer<Entity: Identifiable & Equatable & Sendable> where Entity.ID: Sendable {
  /// Forgets the deleted ids' positions and places the writes.
  @usableFromInline let place:
    @MainActor (_ store: EntityStore<Entity>, _ writes: [Entity], _ deletions: [Entity.ID]) ->
      Placement

  /// - Parameters:
  ///   - versions: The table whose positions the writes take.
  ///   - key: The table's key of an id.
  ///   - numbersFirst: Whether the first drain that finds no position numbers the store's
  ///     entities in their order (1, 2, 3…) before placing the writes.
  @inlinable
  init<Key>(
    _ versions: VersionTable<Key>, key: @escaping @Sendable (Entity.ID) -> Key,
    numbersFirst: Bool = false
  ) {
    place = { store, writes, deletions in
      versions.withPositions { positions in
        if numbersFirst, positions.isEmpty { store.number(key: key, positions: &positions) }
        for id in deletions { positions[key(id)] = nil }
        return store.placement(of: writes, key: key, positions: &positions)
      }
    }
  }

  /// A placer with a table of its own, keyed by id, which numbers the store as it finds it at
  /// its first drain: the positions it gives are consistent with each other for the writer's
  /// life, and with nothing stored before it (a backend that keeps positions across launches
  /// loads them into a ``VersionTable`` instead).
  ///
  /// NB: numbered first, so that a drain never walks a store of entities with no position to
  /// find a neighbour's.
  static func own() -> Placer {
    Placer(VersionTable<Entity.ID>("positions"), key: { $0 }, numbersFirst: true)
  }
}

/// The entity-typed half of a ``StateWriter``.
@MainActor
protocol WriterBase<State>: AnyObject {
  associatedtype State
  var pendingCount: Int { get }
  var rejected: [RejectedWrite] { get }
  func hasChanges(in state: State) -> Bool
  func drain(_ state: inout State) -> Bool
  func takeBatch() -> WriterBatch?
  func retryRejected(_ ids: Set<String>?) -> Bool
  func discardRejected(_ ids: Set<String>?)
}

@MainActor
@usableFromInline
final class EntityWriter<State, Entity: Identifiable & Equatable & Sendable>: WriterBase
where Entity.ID: Sendable {
  @usableFromInline
  typealias Persist = @Sendable (EntityChanges<Entity>) async throws -> Void

  /// Where a writer's batches go.
  @usableFromInline
  enum Output {
    /// To the app's function, on its own.
    case persist(Persist)
    /// To a backend: staged for the flush's transaction, or committed on its own.
    case backend(
      stage: @Sendable (EntityChanges<Entity>) -> BackendBatch,
      commit: Persist)
  }

  private let keyPath: WritableKeyPath<State, EntityStore<Entity>>
  /// The drain's work on each change.
  private let kernel: DrainKernel<State, Entity>
  /// Places the writes in the store's order; `nil` when the writer does not track order.
  private let placer: Placer<Entity>?
  private let output: Output
  private let tracking: VersionTracking<Entity.ID>?
  private var pending = PendingChanges<Entity>()
  /// Writes the database refused, set aside from the flushes, with why.
  private var held = PendingChanges<Entity>()
  private var rejections: [String: RejectedWrite] = [:]

  @usableFromInline
  init(
    keyPath: WritableKeyPath<State, EntityStore<Entity>>, kernel: DrainKernel<State, Entity>,
    placer: Placer<Entity>?, output: Output, tracking: VersionTracking<Entity.ID>? = nil
  ) {
    self.keyPath = keyPath
    self.kernel = kernel
    self.placer = placer
    self.output = output
    self.tracking = tracking
  }

  var pendingCount: Int { pending.count }

  var rejected: [RejectedWrite] {
    held.ids.compactMap { rejections["\($0)"] }
  }

  func retryRejected(_ ids: Set<String>?) -> Bool {
    guard !held.isEmpty else { return false }
    let retried: PendingChanges<Entity>
    if let ids {
      retried = held.remove(described: ids)
    } else {
      retried = held
      held = PendingChanges()
    }
    guard !retried.isEmpty else { return false }
    for id in retried.ids { rejections["\(id)"] = nil }
    // NB: older than every pending change: a newer change to the same id wins.
    pending.restore(failed: retried)
    return true
  }

  func discardRejected(_ ids: Set<String>?) {
    guard !held.isEmpty else { return }
    let discarded: PendingChanges<Entity>
    if let ids {
      discarded = held.remove(described: ids)
    } else {
      discarded = held
      held = PendingChanges()
    }
    for id in discarded.ids { rejections["\(id)"] = nil }
    tracking?.discarded(discarded.ids)
  }

  /// Moves the refused writes of a failed batch (`taken`) aside, and puts the rest back.
  private func setAside(_ refused: [RejectedWrite], of taken: PendingChanges<Entity>) {
    var rest = taken
    let aside = rest.remove(described: Set(refused.map(\.id)))
    for write in refused { rejections[write.id] = write }
    held.restore(failed: aside)
    pending.restore(failed: rest)
  }

  func hasChanges(in state: State) -> Bool {
    state[keyPath: keyPath].hasChanges
  }

  func drain(_ state: inout State) -> Bool {
    guard let drained = kernel.take(&state) else { return false }
    var (changes, writes) = (drained.changes, drained.writes)
    var positions: [Double] = []
    if let placer {
      let placement = placer.place(drained.store, writes, drained.deletions)
      positions = placement.positions
      if placement.renumbered {
        // NB: every entity has a new position, so every one is written.
        writes = drained.store.values
        changes = ChangeSet(
          drained.deletions.map { .deletion($0) } + writes.map { .upsert($0.id) })
      }
    }
    kernel.record(&pending, writes, positions, drained.deletions)
    if !held.isEmpty {
      // NB: a new change to a refused write replaces it (the app fixed the entity, say).
      let superseded = changes.map(\.id)
      held.remove(ids: superseded)
      for id in superseded { rejections["\(id)"] = nil }
    }
    tracking?.drained(changes)
    return true
  }

  func takeBatch() -> WriterBatch? {
    guard !pending.isEmpty else { return nil }
    let taken = pending
    pending = PendingChanges()
    let changes = taken.split(tracksPositions: placer != nil)
    let persist: Persist
    let staged: BackendBatch?
    switch output {
    case .persist(let function):
      persist = function
      staged = nil
    case .backend(let stage, let commit):
      persist = commit
      staged = stage(changes)
    }
    return WriterBatch(
      count: taken.count,
      persist: { try await persist(changes) },
      staged: staged,
      restore: { [weak self] in self?.pending.restore(failed: taken) },
      setAside: { [weak self] refused in self?.setAside(refused, of: taken) }
    )
  }
}
