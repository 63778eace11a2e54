public import EntityTracking
public import Logging
public import QueryCache
import ReduxCore
import Synchronization

/// Keeps the queries a ``/QueryCache/QueryClient`` caches in step with an `EntityStore`: each
/// change set invalidates (or patches) exactly the queries whose entities it touches, as the
/// ``QueryDependency`` list declares, and leaves every other query cached and fresh.
///
/// ```swift
/// let cardQueries = EntityQueryInvalidator(
///   client: client, tracking: state.cards,
///   dependencies: [
///     .queries(under: "search"),
///     .queries(keyedBy: { [QueryKey("count", $0.columnID)] }).reading(\.columnID),
///   ])
/// let store = Store(
///   initialState: state,
///   reducers: [boardReducer, cardQueries.reducer(reading: \.cards), persistence.reducer()])
/// ```
///
/// ## Where the changes come from
///
/// The invalidator never takes changes away from their owner. It reads a change set the app
/// already has: the one it drains for persistence (``apply(_:in:)``), or the store's
/// ``/EntityTracking/EntityStore/changes``, which reads without draining
/// (``reducer(reading:id:)``, placed before `PersistenceMiddleware`'s reducer, which then
/// drains them as before). Only a store nothing else drains is drained by
/// ``reducer(draining:id:)``.
///
/// ## What it remembers
///
/// A change set names ids. To judge a change (was the card in column 1 before it moved? which
/// tags did the deleted card have?), the invalidator keeps the value of every entity as last
/// recorded, starting from the store it is made with: O(*n*) memory for *n* entities, whose
/// heap storage (strings, arrays) the store's values share. A change is the difference between
/// that value and the store's current one, so an id whose value did not change (a change set
/// read again because nothing drained it) changes nothing.
///
/// Record every change, in the order the store went through them. A change the store did not
/// record (a hydration by `merge(from:uniquingIDsWith:)`) is invisible to every change set:
/// ``recordAllDifferences(in:)`` compares the whole store instead.
///
/// ## When the cache changes
///
/// Recording is synchronous, on the caller's thread; the cache is an actor, so its update
/// follows in a task of the invalidator's own, in recording order, each change set's in one
/// step on the cache. Until then a fresh read may still serve the value from before the change:
/// `await` ``flush()`` (or record with ``apply(_:in:)``) before a read that must see it.
public final class EntityQueryInvalidator<Entity: Identifiable & Equatable & Sendable>: Sendable
where Entity.ID: Sendable {
  /// The client whose cache the invalidator updates.
  public let client: QueryClient
  /// What the queries read.
  let dependencies: [QueryDependency<Entity>]

  private struct State {
    var recorded: RecordedEntities<Entity>
    /// Plans recorded and not yet performed, in recording order.
    var pending: [CacheUpdatePlan] = []
    var nextNumber = 0
    /// The updates of performed plans that an ``apply(_:in:)`` waits for, by plan number.
    var outcomes: [Int: EntityQueryUpdate] = [:]
  }

  private let state: Mutex<State>
  private let logger: Logger?
  private let tasks = TaskManager()

  private enum TaskName: Hashable, Sendable {
    case flush
  }

  /// Creates an invalidator for the entities of `store` as they are now.
  ///
  /// - Parameters:
  ///   - client: The client whose cache to update.
  ///   - store: The store as it is now: later changes are judged against its values.
  ///   - dependencies: Which queries read which entities.
  ///   - logger: Receives each update (debug) and each patch that met a value of another type
  ///     (warning); `nil` logs nothing (``apply(_:in:)`` still returns both).
  /// - Complexity: O(1): the store's storage is shared until one of them changes.
  public init(
    client: QueryClient, tracking store: EntityStore<Entity>,
    dependencies: [QueryDependency<Entity>], logger: Logger? = nil
  ) {
    self.client = client
    self.dependencies = dependencies
    self.logger = logger
    state = Mutex(State(recorded: RecordedEntities(store)))
  }

  // MARK: - Recording

  /// Judges the changes `changes` names against the values last recorded, records the values
  /// of `store`, and queues what they do to the cache; a task then performs it. Call
  /// ``flush()`` to wait for it.
  ///
  /// ```swift
  /// let changes = state.cards.drainChanges()   // the app's one drain
  /// cardQueries.record(changes, in: state.cards)
  /// persist(changes)
  /// ```
  ///
  /// - Parameters:
  ///   - changes: The ids that changed, such as a drained change set or the store's
  ///     non-draining ``/EntityTracking/EntityStore/changes``.
  ///   - store: The store after the changes: the source of their new values.
  /// - Complexity: O(*c*·*d*) under a lock, *c* the ids in `changes` and *d* the
  ///   dependencies, times the cost of judging one (a comparison, a predicate).
  public func record(_ changes: ChangeSet<Entity.ID>, in store: EntityStore<Entity>) {
    let queued = enqueue(reportsOutcome: false) { recorded in
      recorded.changes(of: changes.lazy.map(\.id), in: store)
    }
    if queued != nil { scheduleFlush() }
  }

  /// Compares every entity of `store` with the value last recorded and queues what differs, as
  /// ``record(_:in:)`` does: for changes the store did not record, such as a hydration by
  /// `merge(from:uniquingIDsWith:)`.
  ///
  /// - Parameter store: The store as it is now.
  /// - Complexity: O(*n* + *r*), *n* the entities of `store` and *r* those recorded, plus
  ///   O(*c*·*d*) for the *c* that differ and *d* dependencies.
  public func recordAllDifferences(in store: EntityStore<Entity>) {
    let queued = enqueue(reportsOutcome: false) { recorded in recorded.changes(toMatch: store) }
    if queued != nil { scheduleFlush() }
  }

  /// Records `changes` as ``record(_:in:)`` does and returns once the cache is updated (with
  /// them and with everything recorded before), with what they did.
  ///
  /// ```swift
  /// let update = await cardQueries.apply(cards.drainChanges(), in: cards)
  /// ```
  ///
  /// - Parameters:
  ///   - changes: The ids that changed.
  ///   - store: The store after the changes.
  /// - Returns: The queries invalidated and patched.
  /// - Complexity: As ``record(_:in:)``, plus ``flush()``.
  @discardableResult
  public func apply(_ changes: ChangeSet<Entity.ID>, in store: EntityStore<Entity>) async
    -> EntityQueryUpdate
  {
    let queued = enqueue(reportsOutcome: true) { recorded in
      recorded.changes(of: changes.lazy.map(\.id), in: store)
    }
    await flush()
    guard let queued else { return EntityQueryUpdate() }
    guard let number = queued.number else { return queued.update }
    let update = state.withLock { $0.outcomes.removeValue(forKey: number) }
    guard let update else {
      preconditionFailure("flush() returned before performing update \(number)")
    }
    return update
  }

  /// The number of recorded updates the cache has not received yet.
  public var pendingUpdateCount: Int {
    state.withLock { $0.pending.count }
  }

  // MARK: - Performing

  /// Returns once every change recorded before the call has reached the cache.
  ///
  /// - Complexity: One hop to the cache, where each pending update costs what
  ///   ``EntityQueryUpdate`` lists: an invalidation pass over the cache's entries, and the
  ///   patches.
  public func flush() async {
    await Self.performPending(of: self, on: client.cache)
  }

  /// Takes every pending plan and performs them, in order, in one step on `cache`.
  ///
  /// NB: the plans are taken on the cache, not before the hop: whoever reaches the cache first
  /// performs everything recorded so far, so the plans reach it in recording order, and a
  /// `flush()` returns only after every plan recorded before it was performed (by it, or by
  /// an earlier step on the cache).
  private static func performPending(
    of invalidator: EntityQueryInvalidator, on cache: isolated QueryClientCache
  ) {
    let plans = invalidator.state.withLock { state in
      defer { state.pending = [] }
      return state.pending
    }
    for plan in plans {
      let update = plan.perform(on: cache)
      invalidator.report(update)
      if plan.reportsOutcome {
        invalidator.state.withLock { $0.outcomes[plan.number] = update }
      }
    }
  }

  // MARK: - Helpers

  /// Judges changes under the lock and queues their plan.
  ///
  /// - Returns: `nil` if no value changed; otherwise the plan's number, or, when no query
  ///   reads the changes, no number and the (empty) update.
  private func enqueue(
    reportsOutcome: Bool,
    _ changes: (inout RecordedEntities<Entity>) -> [EntityValueChange<Entity>]
  ) -> (number: Int?, update: EntityQueryUpdate)? {
    state.withLock { state in
      let changed = changes(&state.recorded)
      guard !changed.isEmpty else { return nil }
      let plan = CacheUpdatePlan(
        number: state.nextNumber, reportsOutcome: reportsOutcome, changes: changed,
        dependencies: dependencies)
      var untouched = EntityQueryUpdate()
      untouched.changedEntityCount = changed.count
      guard !plan.isEmpty else { return (nil, untouched) }
      state.nextNumber += 1
      state.pending.append(plan)
      return (plan.number, untouched)
    }
  }

  private func scheduleFlush() {
    // NB: `isolation: nil`: the task hops straight to the cache, not through the recorder's
    // actor. It holds the invalidator until it has flushed, so nothing recorded is lost.
    tasks.run(id: TaskName.flush, isolation: nil) {
      await self.flush()
    } onFailure: { _ in
      // NB: a flush throws nothing.
    }
  }

  private func report(_ update: EntityQueryUpdate) {
    guard let logger else { return }
    for error in update.errors {
      logger.warning("\(Entity.self) changes: patch not applied, key invalidated: \(error)")
    }
    logger.debug(
      """
      \(Entity.self) changes: \(update.changedEntityCount) entities; invalidated \
      \(update.invalidatedKeys) and under \(update.invalidatedPrefixes); patched \
      \(update.patchedKeys)
      """)
  }
}
