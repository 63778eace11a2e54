import Logging
import PostgresNIO
import ReduxCore
import Synchronization

/// Follows the change log for an instance: other instances' committed changes arrive, as
/// ``/Persistence/RemoteChanges``, through the closure each ``subscribe(_:deliver:)`` gave; the app
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
    /// Compares the table with what the instance has seen and delivers the differences.
    let resync: @Sendable (_ connection: PostgresConnection) async throws -> Void
  }

  private struct State {
    var cursor: ChangeFeedCursor
    var subscriptions: [String: Subscription] = [:]
    var isRunning = false
    var connections = 0
    /// When the feed last told the database where it is, on the feed's clock.
    var reportedAt: Duration?
  }

  private let database: PostgresBackend
  private let pollInterval: Duration
  private let clock: any Clock<Duration>
  private let reader: ClockReader
  private let retention: Duration
  private let logger: Logger
  private let state: Mutex<State>

  init(
    database: PostgresBackend, cursor: ChangeFeedCursor, pollInterval: Duration,
    retention: Duration, clock: any Clock<Duration>, logger: Logger
  ) {
    self.database = database
    self.pollInterval = pollInterval
    self.clock = clock
    reader = ClockReader(clock)
    self.retention = retention
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
    let subscription = Subscription(
      table: table.name,
      deliver: { records, connection in
        let changes = try await table.remoteChanges(
          records, on: connection, book: database.book, instance: database.instance,
          logger: logger)
        guard !changes.changes.isEmpty else { return }
        // NB: counted before the delivery, so that whoever receives them sees them counted.
        database.recordFeedRead(
          delivered: changes.changes.count, lag: records.lazy.map(\.waited).max() ?? .zero)
        await deliver(changes)
      },
      resync: { connection in
        let changes = try await table.differences(
          from: database.book, on: connection, logger: logger)
        guard !changes.changes.isEmpty else { return }
        database.recordFeedRead(delivered: changes.changes.count, lag: .zero)
        await deliver(changes)
      })
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
        try await reader.sleep(for: delay)()
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
          group.addTask { [reader, pollInterval] in
            while true {
              try await reader.sleep(for: pollInterval)()
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
    try await reportPosition(on: connection)
    let (cursor, subscriptions) = state.withLock { ($0.cursor, $0.subscriptions) }
    let (records, next, heldBack) = try await Self.read(
      after: cursor, on: connection, logger: logger)
    database.recordFeedHeldBack(heldBack)
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

  // MARK: - The log's retention

  /// Tells the database where this feed is, and deletes the log rows every live feed has read,
  /// at most every tenth of the retention: a feed is live while it reports within the
  /// retention. A feed that finds its report gone (it was away longer: the rows it had not
  /// read may be gone) compares the tables with what it has seen instead, and delivers the
  /// differences.
  private func reportPosition(on connection: PostgresConnection) async throws {
    let now = reader.now()
    let (cursor, reportedAt, subscriptions) = state.withLock {
      ($0.cursor, $0.reportedAt, $0.subscriptions)
    }
    if let reportedAt, now - reportedAt < retention / 10 { return }
    let wasKept = try await ChangeFeed.report(
      cursor, of: database.instance, retention: retention, on: connection, logger: logger)
    state.withLock { $0.reportedAt = now }
    // NB: the first report too: the place `feedCursor()` reported may have been forgotten
    // before the feed ran (a start-up longer than the retention).
    guard !wasKept else { return }
    logger.warning(
      "change feed: away longer than the log's retention; comparing the tables instead",
      metadata: ["cursor": "\(cursor)"])
    for (_, subscription) in subscriptions {
      try await subscription.resync(connection)
    }
  }

  /// Records `cursor` as where `instance`'s feed is, forgets the feeds that did not report
  /// within `retention`, and deletes the log rows every feed left has read.
  ///
  /// - Returns: Whether the instance's previous report was still there.
  static func report(
    _ cursor: ChangeFeedCursor, of instance: String, retention: Duration,
    on connection: PostgresConnection, logger: Logger
  ) async throws -> Bool {
    let seconds =
      Double(retention.components.seconds) + Double(retention.components.attoseconds) / 1e18
    let rows = try await connection.query(
      """
      WITH expired AS (
        DELETE FROM reduxkit_feed_readers
        WHERE seen_at < clock_timestamp() - make_interval(secs => \(seconds)) AND instance <> \(instance)
      ),
      reported AS (
        INSERT INTO reduxkit_feed_readers (instance, cursor, seen_at)
        VALUES (\(instance), \(cursor.xmin)::text::xid8, clock_timestamp())
        ON CONFLICT (instance) DO UPDATE SET cursor = excluded.cursor, seen_at = excluded.seen_at
        RETURNING (xmax <> 0) AS was_kept
      )
      SELECT was_kept FROM reported
      """, logger: logger)
    var wasKept = false
    for try await kept in rows.decode(Bool.self) { wasKept = kept }
    // NB: a statement of its own, which sees the report above: the rows below the oldest
    // cursor of the live feeds (this one's included) have been read by every one of them.
    try await connection.query(
      """
      DELETE FROM reduxkit_change_log WHERE txid < (
        SELECT min(cursor) FROM reduxkit_feed_readers
        WHERE seen_at >= clock_timestamp() - make_interval(secs => \(seconds)))
      """, logger: logger)
    return wasKept
  }

  private static func binds(_ text: String) -> PostgresBindings {
    var bindings = PostgresBindings()
    bindings.append(text)
    return bindings
  }

  /// The `WITH` entries that end in `bound`: its `xmin`, the first transaction id a read must
  /// not pass (the oldest still in progress that can write the log), and `held`, how long (in
  /// microseconds) the oldest transaction holding the log's lock with an id has run.
  static let bound = """
    WITH snap AS MATERIALIZED (SELECT pg_current_snapshot() AS s),
    locks AS MATERIALIZED (
      SELECT locktype, relation, database, transactionid, mode, granted, pid FROM pg_locks
    ),
    lockers AS (
      SELECT DISTINCT pid FROM locks
      WHERE locktype = 'relation' AND relation = 'reduxkit_change_log'::regclass
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
    ),
    quiet AS (
      SELECT transactionid AS x FROM locks
      WHERE locktype = 'transactionid' AND mode = 'ExclusiveLock' AND granted
        AND pid NOT IN (SELECT pid FROM lockers)
    ),
    bound AS (
      SELECT coalesce(
        (SELECT min(x) FROM snap, pg_snapshot_xip(snap.s) AS x
         WHERE CASE
           WHEN (x::text::numeric % 4294967296)::text::xid IN (SELECT x FROM quiet)
           THEN pg_xact_status(x) IS DISTINCT FROM 'in progress'
           ELSE true
         END),
        (SELECT pg_snapshot_xmax(s) FROM snap)) AS xmin,
      coalesce(
        (SELECT extract(epoch FROM clock_timestamp() - min(xact_start)) * 1000000
         FROM pg_stat_activity
         WHERE pid IN (SELECT pid FROM lockers) AND backend_xid IS NOT NULL), 0)::bigint AS held
    )
    """

  /// The changes committed after `cursor`, up to the oldest transaction still open that can
  /// still write to the log, and the next cursor.
  ///
  /// NB: the bound. A transaction id below the snapshot's `xmin` has ended, so no log row can
  /// appear behind it later; but `xmin` covers the whole cluster, and one long transaction
  /// anywhere (a report, a session idle in a transaction, in another database too) held every
  /// feed back for its whole length. Only transactions that write the log matter, and every
  /// one of them (a flush) locks the log table before it has a transaction id. So an
  /// in-progress id of the snapshot whose transaction still runs without a lock on the log
  /// never writes it and is skipped; one that ended since the snapshot, or holds the lock,
  /// bounds the read. `heldBack` is how long the oldest transaction holding the lock with an
  /// id has run: the feed's wait, for `metrics`.
  ///
  /// NB: a transaction is skipped only if it is still in progress after the locks were read
  /// (`pg_xact_status`, asked after `quiet`, a `CASE` keeping that order). A flush releases
  /// its locks after it commits, in no set order: without that question, one that committed
  /// while the locks were read could show its id without its lock on the log, count as quiet,
  /// and be passed, though the snapshot did not see its rows: they were never delivered. Still
  /// in progress after the read, it held the log's lock during the read if it writes the log
  /// at all (it takes the lock before it has an id). The locks are read once (`locks`), so
  /// that `lockers` and `quiet` describe one moment.
  ///
  /// NB: the next cursor never goes back. A transaction passed as quiet by one read (it never
  /// writes the log) may have ended by the next read's look at the locks while still in
  /// progress in its snapshot: it bounds that read, below the cursor, and the rows between
  /// were delivered again (a few in 30,000 under three writers).
  static func read(
    after cursor: ChangeFeedCursor, on connection: PostgresConnection, logger: Logger
  ) async throws -> (records: [ChangeRecord], next: ChangeFeedCursor, heldBack: Duration) {
    // NB: one statement, so that the bound and the rows come from one snapshot; the entities of
    // a log row come out in the order they were written.
    let rows = try await connection.allRows(
      PostgresQuery(
        unsafeSQL: Self.bound + """
          ,
          entries AS (
            SELECT c.txid, c.seq, c.table_name, e.id, e.version, e.n, c.op, c.origin, c.written_at
            FROM bound, reduxkit_change_log c,
              unnest(c.entity_ids, c.versions) WITH ORDINALITY AS e(id, version, n)
            WHERE c.txid >= $1::text::xid8 AND c.txid < bound.xmin
          )
          SELECT greatest(bound.xmin, $1::text::xid8)::text, bound.held, c.seq, c.table_name, c.id, c.version, c.op,
            c.origin, (extract(epoch FROM clock_timestamp() - c.written_at) * 1000000)::bigint
          FROM bound LEFT JOIN entries c ON true
          ORDER BY c.txid, c.seq, c.n
          """, binds: Self.binds(cursor.xmin)), logger: logger)
    var records: [ChangeRecord] = []
    var next = cursor
    var heldBack = Duration.zero
    for row in rows {
      let (xmin, held, seq, table, id, version, op, origin, waited) = try row.decode(
        (String, Int64, Int64?, String?, String?, Int64?, String?, String?, Int64?).self)
      next = ChangeFeedCursor(xmin: xmin)
      heldBack = .microseconds(held)
      guard let seq, let table, let id, let version, let op, let origin else { continue }
      records.append(
        ChangeRecord(
          waited: .microseconds(waited ?? 0), sequence: seq, table: table, id: id,
          version: version, isDeletion: op == "delete", origin: origin))
    }
    return (records, next, heldBack)
  }
}

extension PostgresBackend {
  /// A change feed for this instance, reading from `cursor` (take it with ``feedCursor()``
  /// before loading the state).
  ///
  /// - Parameters:
  ///   - cursor: Where to start reading.
  ///   - pollInterval: How often the feed reads the log without a notification.
  ///   - retention: How long the database keeps this feed's place when it stops reporting
  ///     (a crashed or stopped instance): a log row is deleted once every feed that reported
  ///     within the retention has read it (default 10 minutes; at least ten poll intervals).
  ///   - clock: The clock the polls, the reports and the reconnection delays read.
  /// - Returns: The feed; subscribe, then ``ChangeFeed/run()`` it.
  public func changeFeed(
    from cursor: ChangeFeedCursor, pollInterval: Duration = .seconds(2),
    retention: Duration = .seconds(600), clock: any Clock<Duration> = ContinuousClock()
  ) -> ChangeFeed {
    ChangeFeed(
      database: self, cursor: cursor, pollInterval: pollInterval,
      retention: min(max(retention, pollInterval * 10), ClockReader.longestTimer), clock: clock,
      logger: logger)
  }
}
