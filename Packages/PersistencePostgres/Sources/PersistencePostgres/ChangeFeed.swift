import Logging
import PostgresNIO
import Synchronization

/// Follows the change log for an instance: other instances' committed changes arrive, as
/// ``RemoteChanges``, through the closure each ``subscribe(_:deliver:)`` gave; the app
/// dispatches them as ordinary actions, and its reducer applies them with
/// `EntityStore.apply(_:)`, which records nothing, so they are not written back.
///
/// ```swift
/// let cursor = try await database.feedCursor()   // before loading: nothing is missed
/// state.cards = try await database.load(cards)
/// let feed = database.changeFeed(from: cursor)
/// feed.subscribe(cards) { changes in store.dispatch(.cardsChanged(changes)) }
/// Task { await feed.run() }
/// ```
///
/// It holds one connection of its own, which listens for the wake-up each flush sends after
/// its commit (`NOTIFY`), then reads the log from its cursor (``PostgresBackend/changes(after:)``),
/// and reads it again every `pollInterval` whatever happens, which also finds a lost
/// notification and a dead connection. On (re)connection it listens first, then catches up,
/// so a change committed in between is read either way.
public final class ChangeFeed: Sendable {
  /// The `NOTIFY` channel of the flushes.
  static let channel = "reduxkit_change_log"

  private struct Subscription: Sendable {
    let table: String
    /// Reads the rows of `records` and delivers them.
    let deliver:
      @Sendable (_ records: [ChangeRecord], _ connection: PostgresConnection) async throws -> Void
  }

  private struct State {
    var cursor: ChangeFeedCursor
    var subscriptions: [String: Subscription] = [:]
    var isRunning = false
    var connections = 0
  }

  private let database: PostgresBackend
  private let pollInterval: Duration
  private let clock: any Clock<Duration>
  private let logger: Logger
  private let state: Mutex<State>

  init(
    database: PostgresBackend, cursor: ChangeFeedCursor, pollInterval: Duration,
    clock: any Clock<Duration>, logger: Logger
  ) {
    self.database = database
    self.pollInterval = pollInterval
    self.clock = clock
    self.logger = logger
    state = Mutex(State(cursor: cursor))
  }

  /// Where the feed has read to.
  public var cursor: ChangeFeedCursor { state.withLock { $0.cursor } }

  /// Delivers the changes other instances make to `table`. Subscribe before ``run()``; a
  /// second subscription to a table replaces the first.
  ///
  /// - Parameters:
  ///   - table: The table to follow.
  ///   - deliver: Receives each read's changes to the table, in commit order, one change per
  ///     row (its latest). Dispatch them to the store; the feed reads on once it returns (await
  ///     `dispatchWithResult`, so that a full queue holds the feed back rather than losing
  ///     them).
  public func subscribe<Entity>(
    _ table: PostgresTable<Entity>,
    deliver: @escaping @Sendable (RemoteChanges<Entity>) async -> Void
  ) {
    let database = database
    let logger = logger
    let subscription = Subscription(table: table.name) { records, connection in
      let changes = try await table.remoteChanges(
        records, on: connection, book: database.book, instance: database.instance,
        logger: logger)
      guard !changes.changes.isEmpty else { return }
      // NB: counted before the delivery, so that whoever receives them sees them counted.
      database.recordFeedRead(
        delivered: changes.changes.count, lag: records.lazy.map(\.waited).max() ?? .zero)
      await deliver(changes)
    }
    state.withLock { $0.subscriptions[table.name] = subscription }
  }

  /// Follows the log until the task is cancelled, reconnecting (with a growing delay, up to
  /// 5 s) whenever the connection is lost; every loss is logged and counted in
  /// ``PostgresBackend/metrics``.
  public func run() async {
    let alreadyRunning = state.withLock { state in
      defer { state.isRunning = true }
      return state.isRunning
    }
    guard !alreadyRunning else {
      logger.error("ChangeFeed.run() called while the feed runs already; ignored")
      return
    }
    defer { state.withLock { $0.isRunning = false } }
    var delay = Duration.milliseconds(50)
    while !Task.isCancelled {
      let started = ContinuousClock.now
      do {
        try await follow()
      } catch {
        guard !Task.isCancelled else { return }
        logger.warning(
          "change feed: connection lost; reconnecting",
          metadata: ["error": "\(PostgresBackendError(error))", "retryIn": "\(delay)"])
        database.recordFeedReconnect()
      }
      // NB: a connection that lasted starts the backoff again.
      if ContinuousClock.now - started > .seconds(10) { delay = .milliseconds(50) }
      do {
        try await clock.sleep(for: delay)
      } catch {
        return
      }
      delay = min(delay * 2, .seconds(5))
    }
  }

  /// Connects, listens, and reads the log on every wake-up until the connection fails.
  private func follow() async throws {
    try database.checkOpen()
    let id = state.withLock { state in
      state.connections += 1
      return state.connections
    }
    var configuration = database.configuration
    // NB: named, so that an operator finds the feed's connection in pg_stat_activity.
    configuration.options.additionalStartupParameters.append(
      ("application_name", "reduxkit-feed-\(database.instance)"))
    let connection = try await PostgresConnection.connect(
      configuration: configuration, id: id, logger: logger)
    do {
      try await connection.listen(on: Self.channel) { notifications in
        try await withThrowingTaskGroup { group in
          let (wakes, wake) = AsyncStream.makeStream(
            of: Void.self, bufferingPolicy: .bufferingNewest(1))
          // NB: listening now; what committed before is in the log.
          wake.yield()
          group.addTask {
            for try await _ in notifications { wake.yield() }
            throw PostgresBackendError.connectionLost(underlying: CancellationError())
          }
          group.addTask { [clock, pollInterval] in
            while true {
              try await clock.sleep(for: pollInterval)
              wake.yield()
            }
          }
          group.addTask {
            for await _ in wakes { try await self.catchUp(on: connection) }
          }
          try await group.next()
          group.cancelAll()
        }
      }
    } catch {
      await close(connection)
      throw error
    }
    await close(connection)
  }

  private func close(_ connection: PostgresConnection) async {
    do {
      try await connection.close()
    } catch {
      logger.debug("change feed: closing the connection failed", metadata: ["error": "\(error)"])
    }
  }

  /// Reads the log from the cursor and delivers what the subscriptions follow.
  private func catchUp(on connection: PostgresConnection) async throws {
    let (cursor, subscriptions) = state.withLock { ($0.cursor, $0.subscriptions) }
    let (records, next) = try await Self.read(after: cursor, on: connection, logger: logger)
    var byTable: [String: [ChangeRecord]] = [:]
    for record in records where record.origin != database.instance {
      byTable[record.table, default: []].append(record)
    }
    for (table, records) in byTable {
      guard let subscription = subscriptions[table] else { continue }
      try await subscription.deliver(records, connection)
    }
    state.withLock { $0.cursor = next }
  }

  /// The changes committed after `cursor`, up to the oldest transaction still open, and the
  /// next cursor.
  static func read(
    after cursor: ChangeFeedCursor, on connection: PostgresConnection, logger: Logger
  ) async throws -> (records: [ChangeRecord], next: ChangeFeedCursor) {
    // NB: one statement, so that the bound and the rows come from one snapshot; the entities of
    // a log row come out in the order they were written.
    let rows = try await connection.query(
      """
      WITH bound AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin),
      entries AS (
        SELECT c.txid, c.seq, c.table_name, e.id, e.version, e.n, c.op, c.origin, c.written_at
        FROM bound, reduxkit_change_log c,
          unnest(c.entity_ids, c.versions) WITH ORDINALITY AS e(id, version, n)
        WHERE c.txid >= \(cursor.xmin)::text::xid8 AND c.txid < bound.xmin
      )
      SELECT bound.xmin::text, c.seq, c.table_name, c.id, c.version, c.op, c.origin,
        (extract(epoch FROM clock_timestamp() - c.written_at) * 1000000)::bigint
      FROM bound LEFT JOIN entries c ON true
      ORDER BY c.txid, c.seq, c.n
      """, logger: logger)
    var records: [ChangeRecord] = []
    var next = cursor
    for try await (xmin, seq, table, id, version, op, origin, waited) in rows.decode(
      (String, Int64?, String?, String?, Int64?, String?, String?, Int64?).self)
    {
      next = ChangeFeedCursor(xmin: xmin)
      guard let seq, let table, let id, let version, let op, let origin else { continue }
      records.append(
        ChangeRecord(
          waited: .microseconds(waited ?? 0), sequence: seq, table: table, id: id,
          version: version, isDeletion: op == "delete", origin: origin))
    }
    return (records, next)
  }
}

extension PostgresBackend {
  /// A change feed for this instance, reading from `cursor` (take it with ``feedCursor()``
  /// before loading the state).
  ///
  /// - Parameters:
  ///   - cursor: Where to start reading.
  ///   - pollInterval: How often the feed reads the log without a notification.
  ///   - clock: The clock the polls and reconnection delays read.
  /// - Returns: The feed; subscribe, then ``ChangeFeed/run()`` it.
  public func changeFeed(
    from cursor: ChangeFeedCursor, pollInterval: Duration = .seconds(2),
    clock: any Clock<Duration> = ContinuousClock()
  ) -> ChangeFeed {
    ChangeFeed(
      database: self, cursor: cursor, pollInterval: pollInterval, clock: clock, logger: logger)
  }
}
