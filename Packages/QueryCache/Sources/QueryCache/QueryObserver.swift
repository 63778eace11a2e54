public import Observation
import ReduxCore

/// One query as a screen shows it: what swift-query's `QueryModifier` does for a SwiftUI view,
/// driven by methods any front end (a terminal UI, a SwiftUI view) calls.
///
/// ```swift
/// let user = QueryObserver(client: client, queryKey: ["user", id]) { try await api.user(id) }
/// await user.appear()          // fetch: a stale value shows at once and is refreshed
/// Task { await user.subscribe() }   // refetch whenever ["user", id] is invalidated
/// render(user.box)             // data, isLoading, isFetching, error, dataUpdatedAt, source
/// ```
///
/// An observer made (or moved to a key) over a fresh cached value shows it at once, before any
/// `await`: the cache's values are readable from the main actor without a hop.
///
/// While it has a key, the observer stays in sync with the cache (another observer's fetch, a
/// `setQueryData`) and keeps the entry from being garbage collected; releasing it stops both.
@MainActor
@Observable
public final class QueryObserver<Value: Sendable> {
  /// The query's state.
  public private(set) var box = QueryBox<Value>()

  /// The query's key; setting it moves the observer to that key's cache entry.
  public var queryKey: QueryKey? {
    didSet {
      guard queryKey != oldValue else { return }
      box = QueryBox()
      showFreshValue()
      startSyncing()
    }
  }

  /// The client whose cache the observer reads and fills.
  @ObservationIgnored public let client: QueryClient
  /// How the observed query caches and refreshes.
  @ObservationIgnored public let options: QueryOptions
  @ObservationIgnored private let queryFn: @Sendable () async throws -> Value
  @ObservationIgnored private let onCompleted: (@MainActor (Value) -> Void)?
  @ObservationIgnored private let tasks = TaskManager()

  private enum TaskName: Hashable, Sendable { case sync }

  /// Creates an observer.
  ///
  /// - Parameters:
  ///   - client: The client whose cache the observer reads and fills.
  ///   - queryKey: The observed key; `nil` observes nothing until it is set.
  ///   - options: How the query caches and refreshes.
  ///   - queryFn: Fetches the value.
  ///   - onCompleted: Called with every fresh value: once for a fresh cache hit or a fetch, and
  ///     again after a stale value was refreshed.
  public init(
    client: QueryClient = .shared,
    queryKey: QueryKey? = nil,
    options: QueryOptions = QueryOptions(),
    queryFn: @escaping @Sendable () async throws -> Value,
    onCompleted: (@MainActor (Value) -> Void)? = nil
  ) {
    self.client = client
    self.queryKey = queryKey
    self.options = options
    self.queryFn = queryFn
    self.onCompleted = onCompleted
    showFreshValue()
    startSyncing()
  }

  isolated deinit {
    tasks.shutdown()
  }

  /// Fetches with stale-while-revalidate: a cached value shows at once; a stale one is then
  /// refreshed, and a failed refresh keeps it (recording the error). Returns when done.
  public func fetch() async {
    guard let key = queryKey else { return }
    startFetching()
    let fetched = await client.fetchResult(queryKey: key, options: options, queryFn: queryFn)
    guard key == queryKey else { return }
    guard !fetched.isFresh, case .success = fetched.result else {
      return finishFetching(fetched, complete: fetched.isFresh)
    }
    apply(fetched, complete: false)  // the stale value shows while it is refreshed
    let refreshed = await client.fetchResult(
      queryKey: key, options: options, forceRefresh: true, queryFn: queryFn)
    guard key == queryKey else { return }
    finishFetching(refreshed, complete: true)
  }

  /// Whether the value shown is as old as the options' `staleTime` or older (or there is
  /// none), read on the client's clock now.
  public var isStale: Bool {
    guard let updatedAt = box.dataUpdatedAt else { return true }
    return client.clock.now() - updatedAt >= options.staleTime
  }

  /// Fetches if the options ask to refetch on appearance (or if nothing is shown yet).
  public func appear() async {
    guard options.refetchOnAppear || box.data == nil else { return }
    await fetch()
  }

  /// Refetches whenever the key (or a prefix of it) is invalidated, and every
  /// `refetchInterval` if the options set one (polling), until the calling task is cancelled.
  public func subscribe() async {
    guard let key = queryKey else { return }
    let invalidations = await client.createInvalidationStream(queryKey: key)
    await withDiscardingTaskGroup { group in
      if let interval = options.refetchInterval, interval > .zero {
        group.addTask { [weak self] in await self?.poll(key, every: interval) }
      }
      for await _ in invalidations {
        guard key == queryKey else { break }
        await fetch()
      }
      group.cancelAll()
    }
  }

  /// Fetches now, over any cached value, and shows the result.
  public func refresh() async {
    guard let key = queryKey else { return }
    startFetching()
    let refreshed = await client.fetchResult(
      queryKey: key, options: options, forceRefresh: true, queryFn: queryFn)
    guard key == queryKey else { return }
    finishFetching(refreshed, complete: true)
  }

  private func poll(_ key: QueryKey, every interval: Duration) async {
    while !Task.isCancelled, key == queryKey {
      do {
        try await client.clock.sleep(for: interval)()
      } catch {
        return
      }
      await refresh()
    }
  }

  private func startFetching() {
    box.isFetching = true
    if box.data == nil { box.isLoading = true }
  }

  private func finishFetching(_ fetched: QueryResult<Value>, complete: Bool) {
    box.isFetching = false
    box.isLoading = false
    apply(fetched, complete: complete)
  }

  private func apply(_ fetched: QueryResult<Value>, complete: Bool) {
    switch fetched.result {
    case .success(let value):
      box.data = value
      box.error = nil
      box.dataUpdatedAt = fetched.updatedAt
      box.source = fetched.source
      if complete { onCompleted?(value) }
    case .failure(let error):
      box.error = error
    }
  }

  /// Shows the key's cached value at once if it is fresh: read without entering the cache
  /// actor, so a screen over a warm cache has its data in its first frame.
  private func showFreshValue() {
    guard let key = queryKey,
      let (value, updatedAt) = client.cache.freshValue(
        key, as: Value.self, staleTime: options.staleTime)
    else { return }
    box.data = value
    box.dataUpdatedAt = updatedAt
    box.source = .cache
  }

  /// Follows the cache entry of the current key: every update another fetch or `setQueryData`
  /// makes shows here.
  private func startSyncing() {
    guard let key = queryKey else {
      tasks.cancelTask(id: TaskName.sync)
      return
    }
    let client = client
    tasks.run(id: TaskName.sync) { [weak self] in
      let updates = await client.createSyncStream(queryKey: key)
      await self?.syncWithCache(key)
      for await _ in updates {
        guard let self else { return }
        await syncWithCache(key)
      }
    } onFailure: { _ in
    }
  }

  private func syncWithCache(_ key: QueryKey) async {
    guard let entry = await client.cache.entry(queryKey: key, as: Value.self), key == queryKey
    else { return }
    if let data = entry.data {
      box.data = data
      box.error = entry.error
      box.isLoading = false
      // NB: the observer's own fetch stores what it then shows as from the network; only a
      // newer value, from another fetch or `setQueryData`, came through the cache.
      if entry.updatedAt != box.dataUpdatedAt {
        box.dataUpdatedAt = entry.updatedAt
        box.source = .cache
      }
    }
  }
}
