public import Logging
import ReduxCore
import Synchronization

/// Fetches, caches and shares query results: stale-while-revalidate, one fetch in flight per
/// key, invalidation by key prefix, garbage collection of unobserved entries.
///
/// ```swift
/// let client = QueryClient()                       // or QueryClient(clock: testClock)
/// let (isFresh, result) = await client.fetch(queryKey: ["user", id]) { try await api.user(id) }
/// await client.invalidate(["user"])                // every key under "user"
/// ```
///
/// A fresh hit is served without entering the cache actor, so it costs no thread hop, from the
/// main actor as from any task: ``fetch(queryKey:options:forceRefresh:queryFn:)`` answers it
/// before suspending, and ``freshQueryData(_:as:staleTime:)`` reads it synchronously.
public final class QueryClient: Sendable {
  /// The client apps share by default.
  public static let shared = QueryClient()

  /// The cache.
  public let cache: QueryClientCache
  let clock: ClockReader
  @usableFromInline let logger: Logger
  /// The option adjustments already logged, so that a query fetched every second with
  /// out-of-range options warns once, not every second.
  private let loggedAdjustments = Mutex<Set<String>>([])

  /// Creates a client whose stale times and gc times read `clock`.
  ///
  /// - Parameters:
  ///   - clock: The clock of stale times, gc times and retries (a `ManualClock` in tests).
  ///   - logger: Receives the client's messages.
  ///   - onEvent: Told every hit, fetch, invalidation and collection (developer tools). It is
  ///     called on the cache's actor or the caller's thread, and should return at once.
  public init(
    clock: some Clock<Duration> = ContinuousClock(),
    logger: Logger = Logger(label: "ReduxKit.QueryCache.QueryClient"),
    onEvent: (@Sendable (QueryEvent) -> Void)? = nil
  ) {
    let clock = ClockReader(clock)
    self.clock = clock
    cache = QueryClientCache(clock: clock, onEvent: onEvent)
    self.logger = logger
  }

  // MARK: - Fetching

  /// Returns the cached value when there is one (fresh or not: `isFresh` says which), otherwise
  /// runs `queryFn` — once for all concurrent callers of the key — and caches its result.
  ///
  /// A fresh hit returns without suspending or entering the cache actor (no thread hop from the
  /// main actor); anything else (a stale value, a miss, another type) goes through the cache.
  ///
  /// ``fetchResult(queryKey:options:forceRefresh:queryFn:)`` also says where the value came
  /// from and when it was cached.
  ///
  /// - Parameters:
  ///   - queryKey: The key the value is cached under.
  ///   - options: How the value is cached and refreshed.
  ///   - forceRefresh: Runs `queryFn` even over a cached value (joining a fetch already in
  ///     flight).
  ///   - queryFn: Fetches the value; it runs off every actor.
  /// - Returns: `isFresh` is `false` only for a cached value as old as `staleTime` or older.
  ///   A failure is `.failure`: a ``QueryError`` for a key holding another type, or the error
  ///   `queryFn` threw (the cached data, if any, is kept).
  /// - Complexity: O(*k*) to hash the key (*k* parts), plus the query function when it runs.
  @inlinable
  public func fetch<Value: Sendable>(
    queryKey: QueryKey,
    options: QueryOptions = QueryOptions(),
    forceRefresh: Bool = false,
    queryFn: @escaping @Sendable () async throws -> Value
  ) async -> (isFresh: Bool, result: Result<Value, any Error>) {
    let fetched = await fetchResult(
      queryKey: queryKey, options: options, forceRefresh: forceRefresh, queryFn: queryFn)
    return (fetched.isFresh, fetched.result)
  }

  /// Fetches as ``fetch(queryKey:options:forceRefresh:queryFn:)`` does, and says where the
  /// value came from (the cache or the query function) and when it was cached.
  ///
  /// - Parameters:
  ///   - queryKey: The key the value is cached under.
  ///   - options: How the value is cached and refreshed.
  ///   - forceRefresh: Runs `queryFn` even over a cached value (joining a fetch already in
  ///     flight).
  ///   - queryFn: Fetches the value; it runs off every actor.
  /// - Returns: The value or the error, its freshness, source and cache time.
  /// - Complexity: O(*k*) to hash the key (*k* parts), plus the query function when it runs.
  @inlinable
  public func fetchResult<Value: Sendable>(
    queryKey: QueryKey,
    options: QueryOptions = QueryOptions(),
    forceRefresh: Bool = false,
    queryFn: @escaping @Sendable () async throws -> Value
  ) async -> QueryResult<Value> {
    if !options.adjustments.isEmpty { logAdjustments(of: options) }
    // NB: the fast path, inlined so that it is specialized for `Value` (an unspecialized one
    // spends more on generic metadata than on the hit): a fresh value of this type, read
    // without entering the cache actor, so without suspending.
    if !forceRefresh,
      let cached = cache.freshValue(
        queryKey, valueType: ObjectIdentifier(Value.self), staleTime: options.staleTime,
        gcTime: options.gcTime),
      let value = cached.value as? Value
    {
      logger.debug("query \(queryKey): cache hit (fresh)")
      cache.onEvent?(.hit(queryKey, isFresh: true))
      return QueryResult(
        result: .success(value), isFresh: true, source: .cache, updatedAt: cached.updatedAt)
    }
    return await fetchThroughCache(
      queryKey: queryKey, options: options, forceRefresh: forceRefresh, queryFn: queryFn)
  }

  /// The rest of ``fetchResult(queryKey:options:forceRefresh:queryFn:)``: everything but a
  /// fresh hit goes through the cache actor.
  @usableFromInline
  func fetchThroughCache<Value: Sendable>(
    queryKey: QueryKey, options: QueryOptions, forceRefresh: Bool,
    queryFn: @escaping @Sendable () async throws -> Value
  ) async -> QueryResult<Value> {
    let step: QueryClientCache.FetchStep
    do {
      step = try await cache.prepareFetch(
        queryKey, as: Value.self, forced: forceRefresh, options: options,
        start: { [clock, logger] outcome in
          Task {
            let value: Result<any Sendable, any Error>
            do {
              value = .success(
                try await Self.run(
                  queryFn, retry: options.retry, key: queryKey, clock: clock, logger: logger))
            } catch {
              value = .failure(error)
            }
            if !outcome.settle(value) {
              logger.debug("query \(queryKey): result of a cancelled fetch dropped")
            }
            return try value.get()
          }
        })
    } catch {
      logger.error("query \(queryKey): \(error)")
      return QueryResult(result: .failure(error), isFresh: true, source: .cache, updatedAt: nil)
    }
    switch step {
    case .cached(let value, let isFresh, let updatedAt):
      logger.debug("query \(queryKey): cache hit (\(isFresh ? "fresh" : "stale"))")
      return QueryResult(
        result: Self.cast(value, key: queryKey), isFresh: isFresh, source: .cache,
        updatedAt: updatedAt)
    case .join(let outcome, let id):
      let result = await outcome.value()
      let updatedAt = await cache.finishFetch(queryKey, id: id, result: result)
      if case .failure(let error) = result {
        logger.warning("query \(queryKey) failed: \(error)")
      }
      return QueryResult(
        result: result.flatMap { value -> Result<Value, any Error> in
          Self.cast(value, key: queryKey)
        },
        isFresh: true, source: .network, updatedAt: updatedAt)
    }
  }

  /// Fetches like TanStack's `fetchQuery`: a fresh cached value is returned as is; a stale or
  /// missing one is fetched (the seed returned stale data without revalidating).
  ///
  /// - Complexity: As ``fetch(queryKey:options:forceRefresh:queryFn:)``, at most twice.
  public func fetchQuery<Value: Sendable>(
    queryKey: QueryKey,
    options: QueryOptions = QueryOptions(),
    queryFn: @escaping @Sendable () async throws -> Value
  ) async -> Result<Value, any Error> {
    let (isFresh, result) = await fetch(queryKey: queryKey, options: options, queryFn: queryFn)
    guard !isFresh else { return result }
    return await fetch(queryKey: queryKey, options: options, forceRefresh: true, queryFn: queryFn)
      .result
  }

  // MARK: - Writing the cache

  /// Removes the cached data of `key` and of every key under it (unless `exact`), keeps a fetch
  /// in flight from caching its now outdated result, and wakes their invalidation streams.
  ///
  /// An empty key invalidates nothing and logs a warning: every key starts with it, so it would
  /// clear the whole cache by accident. Call ``invalidateAll()`` for that.
  ///
  /// - Complexity: O(*n*·*k*), where *n* is the number of cached entries and invalidation
  ///   streams and *k* the key's parts (a prefix test each).
  public func invalidate(_ key: QueryKey, exact: Bool = false) async {
    // NB: every key has the empty key as a prefix: "everything" is `invalidateAll()`, never the
    // accident of an empty key.
    guard !key.parts.isEmpty else {
      return logger.warning("invalidate: an empty key invalidates nothing; use invalidateAll()")
    }
    let invalidated = await cache.invalidate { exact ? $0 == key : $0.hasPrefix(key) }
    logger.debug("invalidated \(invalidated.count) queries under \(key)")
  }

  /// Removes the cached data of every key, keeps every fetch in flight from caching its now
  /// outdated result, and wakes every invalidation stream.
  ///
  /// - Complexity: O(*n*), where *n* is the number of cached entries and invalidation streams.
  public func invalidateAll() async {
    let invalidated = await cache.invalidate { _ in true }
    logger.debug("invalidated all \(invalidated.count) queries")
  }

  /// Stores `value` for `key` as if just fetched, for optimistic updates; returns the value it
  /// replaces, to roll back with.
  @discardableResult
  public func setQueryData<Value: Sendable>(
    _ key: QueryKey, _ value: Value, options: QueryOptions = QueryOptions()
  ) async throws(QueryError) -> Value? {
    let previous = await cache.entry(queryKey: key, as: Value.self)?.data
    if !options.adjustments.isEmpty { logAdjustments(of: options) }
    try await cache.setData(key, value, gcTime: options.gcTime)
    return previous
  }

  /// The cached value of `key`, if it holds a `Value`.
  public func getQueryData<Value: Sendable>(_ key: QueryKey, as type: Value.Type = Value.self) async
    -> Value?
  {
    if let entry = await cache.entry(queryKey: key, as: Value.self) { return entry.data }
    // NB: nil would read as "nothing cached": say when the key holds another type (the `T?` a
    // `try?` in a query function caches, say).
    if let stored = await cache.typeName(queryKey: key) {
      logger.warning("getQueryData(\(key), as: \(Value.self)): the key holds \(stored)")
    }
    return nil
  }

  /// The value cached for `key` if it is fresh (younger than `staleTime`), read at once: no
  /// suspension, no actor hop, so a view on the main actor can show it in the same frame.
  ///
  /// ```swift
  /// let key = QueryKey("user", id)
  /// if let user = client.freshQueryData(key, as: User.self, staleTime: .seconds(60)) {
  ///   show(user)                       // no fetch needed
  /// } else {
  ///   Task { show(await client.fetchQuery(queryKey: key) { try await api.user(id) }) }
  /// }
  /// ```
  ///
  /// It never answers with a value the cache would refetch: an invalidation, a `setQueryData`
  /// or a collection shows here as soon as the call that made it returns. A stale value is
  /// `nil` (fetch it to revalidate); so is a value of another type, which is logged as
  /// ``getQueryData(_:as:)`` does.
  ///
  /// - Parameters:
  ///   - key: The key the value is cached under.
  ///   - type: The type of the value.
  ///   - staleTime: How long a value is fresh: one as old as this or older is stale.
  /// - Returns: The fresh value, or `nil`.
  /// - Complexity: O(*k*) to hash the key (*k* parts).
  @inlinable
  public func freshQueryData<Value: Sendable>(
    _ key: QueryKey, as type: Value.Type = Value.self, staleTime: Duration
  ) -> Value? {
    if let cached = cache.freshValue(
      key, valueType: ObjectIdentifier(Value.self), staleTime: staleTime, gcTime: .zero),
      let value = cached.value as? Value
    {
      return value
    }
    warnIfHeldAsAnotherType(key, read: "freshQueryData", as: Value.self)
    return nil
  }

  /// Logs a warning if `key` holds a value of another type than `type`: a `nil` read would
  /// otherwise look like an empty cache (the `T?` a `try?` in a query function caches, say).
  @usableFromInline
  func warnIfHeldAsAnotherType(_ key: QueryKey, read: String, as type: any Any.Type) {
    guard let cached = cache.cachedValue(key), cached.valueType != ObjectIdentifier(type) else {
      return
    }
    logger.warning("\(read)(\(key), as: \(type)): the key holds \(cached.typeName)")
  }

  /// Cancels the fetches in flight of `key` and of every key under it (unless `exact`); their
  /// callers get `CancellationError` at once, even if a query function ignores the cancellation
  /// (its result is then dropped). An empty key cancels nothing and logs a warning.
  ///
  /// - Complexity: O(*n*·*k*), where *n* is the number of cached entries and *k* the key's parts.
  public func cancelQueries(_ key: QueryKey, exact: Bool = false) async {
    guard !key.parts.isEmpty else {
      return logger.warning("cancelQueries: an empty key cancels nothing")
    }
    await cache.cancel { exact ? $0 == key : $0.hasPrefix(key) }
  }

  // MARK: - Streams

  /// A stream that yields whenever `queryKey`'s cached value changes. While it lives, the entry
  /// is observed and never collected.
  public func createSyncStream(queryKey: QueryKey) async -> AsyncStream<Void> {
    await cache.addSyncStream(queryKey)
  }

  /// A stream that yields whenever `queryKey` (or a prefix of it) is invalidated.
  public func createInvalidationStream(queryKey: QueryKey) async -> AsyncStream<Void> {
    await cache.addInvalidationStream(queryKey)
  }

  // MARK: - Helpers

  /// Runs the query function off every actor: not on the store, not on the caller's.
  /// Retries it as `retry` says.
  @concurrent
  private static func run<Value: Sendable>(
    _ queryFn: @Sendable () async throws -> Value,
    retry: QueryRetry, key: QueryKey, clock: ClockReader, logger: Logger
  ) async throws -> any Sendable {
    var attempt = 0
    var value: Value
    while true {
      do {
        value = try await queryFn()
        break
      } catch  where !(error is CancellationError) && attempt < retry.count && !Task.isCancelled {
        attempt += 1
        let delay = retry.delay(beforeRetry: attempt)
        logger.info(
          "query \(key) failed (\(error)); retry \(attempt) of \(retry.count) in \(delay)")
        try await clock.sleep(for: delay)()
      }
    }
    // NB: a cancelled fetch (cancelQueries) ends its callers with CancellationError even when
    // the query function ignored the cancellation.
    try Task.checkCancellation()
    return value
  }

  private static func cast<Value>(_ value: any Sendable, key: QueryKey) -> Result<Value, any Error>
  {
    guard let value = value as? Value else {
      return .failure(
        QueryError.typeMismatch(key: key, expected: "\(Value.self)", stored: "\(type(of: value))"))
    }
    return .success(value)
  }

  /// Logs, once per client, each adjustment `options` made to out-of-range arguments.
  @usableFromInline
  func logAdjustments(of options: QueryOptions) {
    let unlogged = loggedAdjustments.withLock { logged in
      options.adjustments.filter { logged.insert($0).inserted }
    }
    for adjustment in unlogged { logger.warning("\(adjustment)") }
  }
}
