import ReduxCore

/// The cache of a ``QueryClient``: entries, in-flight fetches, stream registrations and garbage
/// collection, each step one atomic actor call (no step awaits inside the actor, so concurrent
/// callers never write back stale copies of an entry, as swift-query's `withEntry` did).
///
/// Each entry's lifecycle is a pure state machine; the cache owns them and performs what their
/// events return. A fetch is one plain task shared by every caller of its key, registered in its
/// entry's fetch slot (which already gives it an id and a single owner), so it needs no
/// `TaskManager` of its own; the gc timers, cancelled and replaced by key, run on one.
public actor QueryClientCache {
  typealias Fetch = Task<any Sendable, any Error>

  /// A running fetch: its task, and the outcome its callers await (a cancellation settles it
  /// at once).
  struct FetchHandle {
    let task: Fetch
    let outcome: FetchOutcome
  }

  typealias Entry = QueryEntryStateMachine<FetchHandle>

  enum FetchStep {
    case cached(any Sendable, isFresh: Bool, updatedAt: Duration)
    case join(FetchOutcome, id: Int)
  }

  // NB: each entry's lifecycle is a QueryEntryStateMachine; this actor is its thin owner: it
  // keeps them by key, and performs what their events return (start a fetch, notify, arm or
  // disarm a gc timer). Fetches are plain tasks, not TaskManager tasks: they are shared by every
  // caller of a key and outlive no caller's interest, and their lifetime is the entry's fetch
  // slot, which the machine already tracks; the gc timers, which need ids and cancellation by
  // key, run on TaskManager.
  private var entries: [QueryKey: Entry] = [:] {
    didSet { resumeSatisfiedWaiters() }
  }
  private var syncStreams: [QueryKey: [Int: AsyncStream<Void>.Continuation]] = [:] {
    didSet { resumeSatisfiedWaiters() }
  }
  private var invalidationStreams: [QueryKey: [Int: AsyncStream<Void>.Continuation]] = [:] {
    didSet { resumeSatisfiedWaiters() }
  }
  /// Who waits for a condition on the cache (``waitUntil(_:)``), checked after each change.
  private var conditionWaiters:
    [(
      condition: @Sendable (isolated QueryClientCache) -> Bool,
      waiter: CheckedContinuation<Void, Never>
    )] =
      []
  private var nextID = 0
  private let clock: ClockReader
  private let collector = TaskManager()
  /// Every entry's value, readable without entering the actor: the fast path of a fresh hit
  /// (``freshValue(_:valueType:staleTime:gcTime:)``). Written here in the same turn as the entry.
  private nonisolated let values = CachedValues()

  /// Told what the cache does (``QueryClient/init(clock:logger:onEvent:)``).
  @usableFromInline nonisolated let onEvent: (@Sendable (QueryEvent) -> Void)?

  init(clock: ClockReader, onEvent: (@Sendable (QueryEvent) -> Void)? = nil) {
    self.clock = clock
    self.onEvent = onEvent
  }

  deinit {
    collector.shutdown()
    // NB: a released client's streams end, so the loops that read them end too.
    for continuation in syncStreams.values.flatMap(\.values) { continuation.finish() }
    for continuation in invalidationStreams.values.flatMap(\.values) { continuation.finish() }
  }

  // MARK: - Reading

  /// The number of cached entries.
  public var count: Int { entries.count }

  /// The entry for `queryKey`, if it holds a `Value`.
  public func entry<Value: Sendable>(queryKey: QueryKey, as type: Value.Type = Value.self)
    -> QueryCacheEntry<Value>?
  {
    guard let entry = entries[queryKey], entry.valueType == ObjectIdentifier(Value.self) else {
      return nil
    }
    return QueryCacheEntry(
      data: entry.value as? Value, error: entry.error, updatedAt: entry.updatedAt)
  }

  /// The value cached for `key` if it holds a `Value` younger than `staleTime`, read without
  /// entering the actor: from the main actor (or any thread) a fresh hit costs a lock, not two
  /// thread hops.
  ///
  /// `nil` whenever a fetch has more to do than return the value: nothing cached, a value of
  /// another type (the cache logs the mismatch), a stale value (revalidated), or an entry whose
  /// gc time is shorter than `gcTime` (the cache extends it).
  ///
  /// - Complexity: O(*k*) to hash the key (*k* parts).
  nonisolated func freshValue<Value: Sendable>(
    _ key: QueryKey, as type: Value.Type, staleTime: Duration, gcTime: Duration = .zero
  ) -> (value: Value, updatedAt: Duration)? {
    guard
      let cached = freshValue(
        key, valueType: ObjectIdentifier(Value.self), staleTime: staleTime, gcTime: gcTime),
      let value = cached.value as? Value
    else { return nil }
    return (value, cached.updatedAt)
  }

  /// ``freshValue(_:as:staleTime:gcTime:)`` for the type `valueType` identifies, without
  /// generics: the inlined fast path of a fetch calls it, and casts the value itself.
  ///
  /// - Complexity: O(*k*) to hash the key (*k* parts).
  @usableFromInline
  nonisolated func freshValue(
    _ key: QueryKey, valueType: ObjectIdentifier, staleTime: Duration, gcTime: Duration
  ) -> CachedValues.Value? {
    guard let cached = values.value(for: key), cached.valueType == valueType,
      gcTime <= cached.gcTime, clock.now() - cached.updatedAt < staleTime
    else { return nil }
    return cached
  }

  /// The value cached for `key`, whatever its age, read without entering the actor.
  nonisolated func cachedValue(_ key: QueryKey) -> CachedValues.Value? {
    values.value(for: key)
  }

  /// The number of values readable without entering the actor (one per entry holding a value).
  nonisolated var cachedValueCount: Int { values.count }

  /// The capacities of the dictionaries of entries and of values (for tests of capacity
  /// release).
  var capacities: (entries: Int, values: Int) {
    (entries.capacity, values.capacity)
  }

  /// Suspends until `condition` holds of the cache, checked after every change to its entries
  /// and streams: how a test waits for concurrent callers to join a fetch, or for a gc timer
  /// to evict an entry, without polling.
  ///
  /// - Parameter condition: What to wait for, read on the cache.
  func waitUntil(_ condition: @escaping @Sendable (isolated QueryClientCache) -> Bool) async {
    guard !condition(self) else { return }
    await withCheckedContinuation { conditionWaiters.append((condition, $0)) }
  }

  private func resumeSatisfiedWaiters() {
    // NB: one branch on every change when nobody waits, which is always outside tests.
    guard !conditionWaiters.isEmpty else { return }
    let waiting = conditionWaiters
    conditionWaiters = []
    for entry in waiting {
      if entry.condition(self) { entry.waiter.resume() } else { conditionWaiters.append(entry) }
    }
  }

  /// The name of the type of the values `queryKey` holds, if it has an entry.
  func typeName(queryKey: QueryKey) -> String? {
    entries[queryKey]?.typeName
  }

  /// How many callers joined the fetch in flight for `queryKey` after the one that started it.
  func joinedCount(queryKey: QueryKey) -> Int {
    entries[queryKey]?.inFlight?.joined ?? 0
  }

  /// The number of invalidation streams of `queryKey`.
  func invalidationStreamCount(queryKey: QueryKey) -> Int {
    invalidationStreams[queryKey]?.count ?? 0
  }

  /// The number of sync streams (observers) of `queryKey`.
  public func observerCount(queryKey: QueryKey) -> Int {
    syncStreams[queryKey]?.count ?? 0
  }

  // MARK: - Fetching

  /// Decides how a fetch of `key` proceeds: from the cache, by joining the fetch in flight, or
  /// by starting one (registered here, so that concurrent callers join it).
  func prepareFetch<Value: Sendable>(
    _ key: QueryKey, as type: Value.Type, forced: Bool, options: QueryOptions,
    start: (FetchOutcome) -> Fetch
  ) throws(QueryError) -> FetchStep {
    let previousGcTime = entries[key]?.gcTime
    var entry = try adoptedEntry(key, for: Value.self, gcTime: options.gcTime)
    defer {
      // NB: a longer gc time asked for: the fast path must see it, or it would send every
      // fetch with these options here.
      if let previousGcTime, entry.gcTime != previousGcTime { publish(entry, for: key) }
      entries[key] = entry
    }
    switch entry.requestFetch(forced: forced, staleTime: options.staleTime, now: clock.now()) {
    case .cached(let value, let isFresh, let updatedAt):
      onEvent?(.hit(key, isFresh: isFresh))
      return .cached(value, isFresh: isFresh, updatedAt: updatedAt)
    case .join(let running, let id):
      return .join(running.outcome, id: id)
    case .start:
      onEvent?(.fetch(key))
      nextID += 1
      let outcome = FetchOutcome()
      let handle = FetchHandle(task: start(outcome), outcome: outcome)
      perform(entry.didStart(id: nextID, fetch: handle), for: key)
      return .join(outcome, id: nextID)
    }
  }

  /// Records the outcome of fetch `id`; only the first caller to finish it does anything, so the
  /// in-flight slot is released exactly once.
  ///
  /// - Returns: When the fetched value was cached, for every caller of the fetch; `nil` when it
  ///   was not (a failure, an invalidation while it ran, a cancellation).
  @discardableResult
  func finishFetch(_ key: QueryKey, id: Int, result: Result<any Sendable, any Error>)
    -> Duration?
  {
    guard var entry = entries[key] else { return nil }
    let (completion, collection) = entry.finish(id: id, result: result, now: clock.now())
    if completion == .stored { publish(entry, for: key) }
    entries[key] = entry
    if completion != .ignored, let onEvent {
      let cached = if case .success = result { completion == .stored } else { false }
      onEvent(.fetched(key, cached: cached))
    }
    switch completion {
    case .ignored:
      // NB: another caller of the same fetch recorded it first; the entry says when.
      guard case .success = result, entry.phase == .cached else { return nil }
      return entry.updatedAt
    case .discarded:
      perform(collection, for: key)
      return nil
    case .stored:
      perform(collection, for: key)
      yieldSync(key)
      guard case .success = result else { return nil }
      return entry.updatedAt
    }
  }

  /// Stores `value` for `key` as if fetched now.
  func setData<Value: Sendable>(_ key: QueryKey, _ value: Value, gcTime: Duration)
    throws(QueryError)
  {
    var entry = try adoptedEntry(key, for: Value.self, gcTime: gcTime)
    let collection = entry.set(value, now: clock.now())
    publish(entry, for: key)
    entries[key] = entry
    yieldSync(key)
    perform(collection, for: key)
  }

  /// What ``patchData(_:as:_:)`` did.
  package enum PatchOutcome: Equatable, Sendable {
    /// The cached value was changed in place; its observers were notified.
    case patched
    /// Nothing is cached and no fetch runs: nothing to patch (the next fetch computes it).
    case notCached
    /// A fetch was running, whose result could predate the change: the key was invalidated
    /// instead.
    case invalidatedFetchInFlight
    /// The key holds a value of another type (named here): the key was invalidated instead.
    case invalidatedTypeMismatch(stored: String)
  }

  /// Changes the value cached for `key` in place, in one step on the cache, keeping its age;
  /// or, where a patch could leave the key wrong, invalidates it.
  ///
  /// - Parameters:
  ///   - key: The key whose value to patch.
  ///   - type: The type of the value.
  ///   - patch: Changes the value; it runs on the cache, so it must be quick.
  /// - Returns: What was done.
  /// - Complexity: O(*k*) to hash the key (*k* parts) plus the cost of `patch`; O(*n*) more for
  ///   an invalidation, *n* the number of entries and invalidation streams.
  package func patchData<Value: Sendable>(
    _ key: QueryKey, as type: Value.Type, _ patch: (inout Value) -> Void
  ) -> PatchOutcome {
    guard var entry = entries[key] else { return .notCached }
    // NB: a fetch in flight may have read the data before the change; its result would
    // overwrite the patch. Invalidation keeps it from being cached.
    guard entry.inFlight == nil else {
      invalidate { $0 == key }
      return .invalidatedFetchInFlight
    }
    guard let cached = entry.value else { return .notCached }
    guard entry.valueType == ObjectIdentifier(Value.self), var value = cached as? Value else {
      invalidate { $0 == key }
      return .invalidatedTypeMismatch(stored: entry.typeName)
    }
    patch(&value)
    let collection = entry.patch(value)
    publish(entry, for: key)
    entries[key] = entry
    yieldSync(key)
    perform(collection, for: key)
    return .patched
  }

  /// Removes the data of every key `matches` accepts, marks their fetches in flight as
  /// invalidated, and wakes their invalidation streams.
  ///
  /// - Returns: The keys whose entries or invalidation streams `matches` accepted.
  /// - Complexity: O(*n*) calls of `matches`, *n* the number of entries and invalidation
  ///   streams.
  @discardableResult
  package func invalidate(where matches: (QueryKey) -> Bool) -> [QueryKey] {
    let keys = entries.keys.filter(matches)
    for key in keys {
      guard var entry = entries[key] else { continue }
      let collection = entry.invalidate()
      publish(entry, for: key)
      entries[key] = entry
      perform(collection, for: key)
      onEvent?(.invalidated(key))
    }
    let watched = invalidationStreams.keys.filter(matches)
    for key in watched {
      for continuation in invalidationStreams[key, default: [:]].values { continuation.yield() }
    }
    return Array(Set(keys).union(watched))
  }

  /// Cancels the fetches in flight of every key `matches` accepts.
  func cancel(where matches: (QueryKey) -> Bool) {
    for key in entries.keys where matches(key) {
      guard let (cancelled, collection) = entries[key]?.cancel(), let cancelled else { continue }
      cancelled.task.cancel()
      // NB: its callers go now, whether or not the query function heeds the cancellation.
      cancelled.outcome.settle(.failure(CancellationError()))
      perform(collection, for: key)
    }
  }

  /// The entry of `key` ready for values of `type`: the stored one, or a new one.
  private func adoptedEntry<Value>(
    _ key: QueryKey, for type: Value.Type, gcTime: Duration
  ) throws(QueryError) -> Entry {
    let valueType = ObjectIdentifier(Value.self)
    guard var entry = entries[key] else {
      return Entry(
        valueType: valueType, typeName: "\(Value.self)", gcTime: gcTime,
        observers: syncStreams[key]?.count ?? 0)
    }
    // NB: the type's name is formatted only when the entry changes type: it costs thousands of
    // instructions, more than the rest of a cache hit.
    guard entry.adopt(valueType: valueType, typeName: "\(Value.self)", gcTime: gcTime) else {
      throw .typeMismatch(key: key, expected: "\(Value.self)", stored: entry.typeName)
    }
    return entry
  }

  // MARK: - Streams

  /// Registers an observer of `key`'s cache updates; an observed entry is never collected.
  func addSyncStream(_ key: QueryKey) -> AsyncStream<Void> {
    let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    nextID += 1
    let id = nextID
    syncStreams[key, default: [:]][id] = continuation
    if let collection = entries[key]?.observerAdded() { perform(collection, for: key) }
    continuation.onTermination = { [weak self] _ in
      Task { await self?.removeSyncStream(key, id: id) }
    }
    return stream
  }

  func addInvalidationStream(_ key: QueryKey) -> AsyncStream<Void> {
    let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    nextID += 1
    let id = nextID
    invalidationStreams[key, default: [:]][id] = continuation
    continuation.onTermination = { [weak self] _ in
      Task { await self?.removeInvalidationStream(key, id: id) }
    }
    return stream
  }

  private func removeSyncStream(_ key: QueryKey, id: Int) {
    guard syncStreams[key]?.removeValue(forKey: id) != nil else { return }
    if syncStreams[key]?.isEmpty == true {
      syncStreams[key] = nil
      syncStreams.releaseCapacityIfSparse()
    }
    if let collection = entries[key]?.observerRemoved() { perform(collection, for: key) }
  }

  private func removeInvalidationStream(_ key: QueryKey, id: Int) {
    invalidationStreams[key]?[id] = nil
    if invalidationStreams[key]?.isEmpty == true {
      invalidationStreams[key] = nil
      invalidationStreams.releaseCapacityIfSparse()
    }
  }

  /// Copies the value of `key`'s `entry` (or its absence) to ``values``, where the fast path
  /// reads it: called in the same turn as every change of an entry's value, updated-at time or
  /// gc time, just *before* the entry is stored, so that whoever waits for the entry's change
  /// (``waitUntil(_:)``) finds the value changed too.
  private func publish(_ entry: Entry?, for key: QueryKey) {
    guard let entry, let value = entry.value, let updatedAt = entry.updatedAt else {
      return values.set(nil, for: key)
    }
    values.set(
      CachedValues.Value(
        value: value, valueType: entry.valueType, typeName: entry.typeName, updatedAt: updatedAt,
        gcTime: entry.gcTime),
      for: key)
  }

  private func yieldSync(_ key: QueryKey) {
    for continuation in syncStreams[key, default: [:]].values { continuation.yield() }
  }

  // MARK: - Garbage collection

  private struct CollectionID: Hashable, Sendable {
    let key: QueryKey
  }

  /// Arms or disarms `key`'s gc timer, as its entry's last event said.
  private func perform(_ collection: Entry.Collection, for key: QueryKey) {
    switch collection {
    case .cancel:
      collector.cancelTask(id: CollectionID(key: key))
    case .schedule(let gcTime):
      let sleep = clock.sleep(for: gcTime)
      // NB: `isolation: nil`: a task isolated to this actor would hold it until the timer fires
      // (the task captures its isolation), so a released client's cache would live `gcTime`
      // on, forever on a clock nobody advances. The timer holds the cache weakly and hops in to
      // collect.
      collector.run(id: CollectionID(key: key), isolation: nil) { [weak self] in
        try await sleep()
        await self?.collect(key)
      } onFailure: { _ in
        // NB: the sleep throws only when the timer is cancelled (observed again, refetched, or
        // the cache released), which is not a failure.
      }
    }
  }

  private func collect(_ key: QueryKey) {
    guard entries[key]?.collectionIsDue() == true else { return }
    publish(nil, for: key)
    entries[key] = nil
    entries.releaseCapacityIfSparse()
    onEvent?(.collected(key))
  }
}
