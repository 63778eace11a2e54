import ReduxCore

/// The cache of a ``QueryClient``: entries, in-flight fetches, stream registrations and garbage
/// collection, each step one atomic actor call (no step awaits inside the actor, so concurrent
/// callers never write back stale copies of an entry, as swift-query's `withEntry` did).
public actor QueryClientCache {
  typealias Fetch = Task<any Sendable, any Error>

  struct InFlight {
    let id: Int
    let task: Fetch
    /// What every caller of the fetch awaits; a cancellation settles it at once.
    let outcome: FetchOutcome
    /// Set by an invalidation while the fetch ran: its value must not be cached.
    var isInvalidated = false
    /// Callers that joined it after the one that started it.
    var joined = 0
  }

  struct Stored {
    var value: (any Sendable)?
    var valueType: ObjectIdentifier
    var typeName: String
    var error: (any Error)?
    var updatedAt: Duration?
    var inFlight: InFlight?
    var gcTime: Duration
  }

  enum FetchStep {
    case cached(any Sendable, isFresh: Bool)
    case join(FetchOutcome, id: Int)
  }

  private var entries: [QueryKey: Stored] = [:]
  private var syncStreams: [QueryKey: [Int: AsyncStream<Void>.Continuation]] = [:]
  private var invalidationStreams: [QueryKey: [Int: AsyncStream<Void>.Continuation]] = [:]
  private var nextID = 0
  private let clock: ClockReader
  private let collector = TaskManager()

  init(clock: ClockReader) {
    self.clock = clock
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
    guard let stored = entries[queryKey], stored.valueType == ObjectIdentifier(Value.self) else {
      return nil
    }
    return QueryCacheEntry(
      data: stored.value as? Value, error: stored.error, updatedAt: stored.updatedAt)
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
    var stored = try storedEntry(key, for: Value.self, gcTime: options.gcTime)
    if !forced, let value = stored.value, let updatedAt = stored.updatedAt {
      return .cached(value, isFresh: clock.now() - updatedAt < options.staleTime)
    }
    if let inFlight = stored.inFlight {
      entries[key]?.inFlight?.joined += 1
      return .join(inFlight.outcome, id: inFlight.id)
    }
    nextID += 1
    let outcome = FetchOutcome()
    stored.inFlight = InFlight(id: nextID, task: start(outcome), outcome: outcome)
    entries[key] = stored
    return .join(outcome, id: nextID)
  }

  /// Records the outcome of fetch `id`; only the first caller to finish it does anything, so the
  /// in-flight slot is released exactly once.
  ///
  /// - Returns: Whether the outcome was recorded (not already recorded, not invalidated).
  @discardableResult
  func finishFetch(_ key: QueryKey, id: Int, result: Result<any Sendable, any Error>) -> Bool {
    guard var stored = entries[key], let inFlight = stored.inFlight, inFlight.id == id else {
      return false
    }
    stored.inFlight = nil
    defer {
      entries[key] = stored
      scheduleCollection(of: key)
    }
    guard !inFlight.isInvalidated else { return false }
    switch result {
    case .success(let value):
      stored.value = value
      stored.error = nil
      stored.updatedAt = clock.now()
    case .failure(let error):
      // NB: a failed refresh keeps the data it could not replace.
      stored.error = error
    }
    yieldSync(key)
    return true
  }

  /// Stores `value` for `key` as if fetched now.
  func setData<Value: Sendable>(_ key: QueryKey, _ value: Value, gcTime: Duration)
    throws(QueryError)
  {
    var stored = try storedEntry(key, for: Value.self, gcTime: gcTime)
    stored.value = value
    stored.error = nil
    stored.updatedAt = clock.now()
    entries[key] = stored
    yieldSync(key)
    scheduleCollection(of: key)
  }

  /// Removes the data of every key `matches` accepts, marks their fetches in flight as
  /// invalidated, and wakes their invalidation streams.
  func invalidate(where matches: (QueryKey) -> Bool) -> [QueryKey] {
    let keys = entries.keys.filter(matches)
    for key in keys {
      entries[key]?.value = nil
      entries[key]?.updatedAt = nil
      entries[key]?.error = nil
      entries[key]?.inFlight?.isInvalidated = true
      scheduleCollection(of: key)
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
      guard let inFlight = entries[key]?.inFlight else { continue }
      entries[key]?.inFlight = nil
      inFlight.task.cancel()
      // NB: its callers go now, whether or not the query function heeds the cancellation.
      inFlight.outcome.settle(.failure(CancellationError()))
      scheduleCollection(of: key)
    }
  }

  private func storedEntry<Value>(
    _ key: QueryKey, for type: Value.Type, gcTime: Duration
  ) throws(QueryError) -> Stored {
    let valueType = ObjectIdentifier(Value.self)
    guard var stored = entries[key] else {
      return Stored(valueType: valueType, typeName: "\(Value.self)", gcTime: gcTime)
    }
    if stored.valueType != valueType {
      guard stored.value == nil, stored.inFlight == nil else {
        throw .typeMismatch(key: key, expected: "\(Value.self)", stored: stored.typeName)
      }
      stored.valueType = valueType
      stored.typeName = "\(Value.self)"
    }
    stored.gcTime = max(stored.gcTime, gcTime)
    return stored
  }

  // MARK: - Streams

  /// Registers an observer of `key`'s cache updates; an observed entry is never collected.
  func addSyncStream(_ key: QueryKey) -> AsyncStream<Void> {
    let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    nextID += 1
    let id = nextID
    syncStreams[key, default: [:]][id] = continuation
    collector.cancelTask(id: CollectionID(key: key))
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
    syncStreams[key]?[id] = nil
    if syncStreams[key]?.isEmpty == true {
      syncStreams[key] = nil
      scheduleCollection(of: key)
    }
  }

  private func removeInvalidationStream(_ key: QueryKey, id: Int) {
    invalidationStreams[key]?[id] = nil
    if invalidationStreams[key]?.isEmpty == true { invalidationStreams[key] = nil }
  }

  private func yieldSync(_ key: QueryKey) {
    for continuation in syncStreams[key, default: [:]].values { continuation.yield() }
  }

  // MARK: - Garbage collection

  private struct CollectionID: Hashable, Sendable {
    let key: QueryKey
  }

  /// Evicts `key` `gcTime` from now unless it is observed or fetching by then.
  private func scheduleCollection(of key: QueryKey) {
    guard let stored = entries[key], syncStreams[key] == nil, stored.inFlight == nil else { return }
    let sleep = clock.sleep(for: stored.gcTime)
    // NB: `isolation: nil`: a task isolated to this actor would hold it until the timer fires
    // (the task captures its isolation), so a released client's cache would live `gcTime` on,
    // forever on a clock nobody advances. The timer holds the cache weakly and hops in to
    // collect.
    collector.run(id: CollectionID(key: key), isolation: nil) { [weak self] in
      try await sleep()
      await self?.collect(key)
    } onFailure: { _ in
      // NB: the sleep throws only when the timer is cancelled (observed again, refetched, or
      // the cache released), which is not a failure.
    }
  }

  private func collect(_ key: QueryKey) {
    guard let stored = entries[key], syncStreams[key] == nil, stored.inFlight == nil else { return }
    entries[key] = nil
  }
}
