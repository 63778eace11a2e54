public import EntityTracking
import Foundation
public import Logging
public import Persistence
import PostgresNIO
import Synchronization

/// A PostgreSQL database for persistence, shared by several app instances: one transaction per
/// flush, optimistic concurrency on every row, and a change log that other instances read
/// without gaps.
///
/// ```swift
/// let cards = PostgresTable<Card>("cards")
/// let database = try await PostgresBackend(url: url, instance: "web-1", migrations: [
///   PostgresMigration("v1") { try await cards.create(on: $0) },
/// ])
/// let cursor = try await database.feedCursor()  // before loading: nothing is missed
/// state.cards = try await database.load(cards)
/// let persistence = PersistenceMiddleware(backend: database, writers: [
///   StateWriter(keyPath: \.cards, table: cards, database: database),
/// ])
/// ```
///
/// ## Optimistic concurrency
/// Every row has a version. The database remembers, per row, the version this instance last
/// loaded or wrote; a flush updates or deletes a row only at that version. A row another
/// instance changed meanwhile is a ``/Persistence/PersistenceConflict``: the whole flush is rolled back and
/// fails with ``PostgresBackendError/conflicts(_:)`` (logged and retried by the middleware,
/// failing again) until the app calls ``resolve(_:keeping:)``. A table created with
/// `conflictPolicy: .lastWriterWins` overwrites instead.
///
/// ## The change feed
/// Each flush appends to the change log, in its own transaction, the ids and versions it
/// wrote or deleted (one log row per table and kind of change, the ids in an array).
/// ``changes(after:)`` reads them up to the oldest transaction still open on the server, so a
/// transaction that commits late is never skipped. Only transactions that can write the log
/// hold the feed back (every flush locks the log first): a long report, or a session idle in a
/// transaction, anywhere on the server, does not; a flush that stays open does, and
/// ``PostgresMetrics/feedHeldBack`` says for how long.
public final class PostgresBackend: PersistenceBackend {
  public typealias Batch = PostgresBatch

  /// This instance's name, recorded with every row and change it writes.
  public let instance: String
  let client: PostgresClient
  /// How to open a connection of its own (the change feed's listening connection).
  let configuration: PostgresConnection.Configuration
  private let run: Task<Void, Never>
  let logger: Logger
  @usableFromInline let book = VersionBook()
  private let recorder = MetricsRecorder()
  private let isClosed = Mutex(false)

  /// Opens the database at `url` (`postgres://user:password@host:port/database`), checks that
  /// the server answers and accepts the credentials, then runs the migrations this database
  /// has not run.
  ///
  /// - Parameters:
  ///   - url: The server and database.
  ///   - instance: This instance's name (unique among the instances sharing the database).
  ///   - migrations: The app's schema steps, in order.
  ///   - logger: Receives the driver's and the database's messages.
  /// - Throws: ``PostgresBackendError/invalidURL(_:)``,
  ///   ``PostgresBackendError/cannotConnect(host:port:underlying:)``,
  ///   ``PostgresBackendError/authentication(user:message:)``,
  ///   ``PostgresBackendError/newerSchema(unknownMigrations:)``,
  ///   ``PostgresBackendError/duplicateMigration(_:)``, or a migration's failure.
  public init(
    url: String, instance: String, migrations: [PostgresMigration],
    logger: Logger = Logger(label: "ReduxKit.PersistencePostgres")
  ) async throws(PostgresBackendError) {
    guard let components = URLComponents(string: url),
      components.scheme?.hasPrefix("postgres") == true,
      let host = components.host, let user = components.user
    else { throw .invalidURL(url) }
    let port = components.port ?? 5432
    let database = components.path.isEmpty ? nil : String(components.path.dropFirst())
    let connection = PostgresConnection.Configuration(
      host: host, port: port, username: user, password: components.password, database: database,
      tls: .disable)
    // NB: a first connection of its own, so that a wrong host or password fails at once with
    // a clear error, where the pool would keep retrying.
    do {
      let probe = try await PostgresConnection.connect(
        configuration: connection, id: 0, logger: logger)
      try await probe.close()
    } catch {
      throw PostgresBackendError(error, host: host, port: port, user: user)
    }
    var duplicates = Set<String>()
    for migration in migrations where !duplicates.insert(migration.identifier).inserted {
      throw .duplicateMigration(migration.identifier)
    }
    self.instance = instance
    self.logger = logger
    self.configuration = connection
    let client = PostgresClient(
      configuration: PostgresClient.Configuration(
        host: host, port: port, username: user, password: components.password,
        database: database, tls: .disable),
      backgroundLogger: logger)
    self.client = client
    // NB: started at once, on this task, up to its first suspension: `run()` marks the client
    // running before it suspends, so the migrations' first lease below finds it running
    // (postgres-nio warned "run() hasn't been called yet" at every start).
    if #available(macOS 26, iOS 26, *) {
      run = Task.immediate { await client.run() }
    } else {
      run = Task { await client.run() }
    }
    do {
      try await migrate(migrations)
    } catch {
      run.cancel()
      throw error
    }
  }

  deinit {
    run.cancel()
  }

  /// Closes the connections. Call it after the middleware's `shutdown()`. Afterwards every read
  /// and write fails with ``PostgresBackendError/closed``.
  public func close() {
    isClosed.withLock { $0 = true }
    run.cancel()
  }

  func checkOpen() throws(PostgresBackendError) {
    if isClosed.withLock({ $0 }) { throw .closed }
  }

  /// Runs `body` in a transaction, its errors classified.
  ///
  /// NB: not `PostgresClient.withTransaction`, which sends `ROLLBACK` whatever `body` threw.
  /// When the server has just ended the session (`pg_terminate_backend`, a restart), that
  /// `ROLLBACK` can reach the connection after NIO has torn its pipeline down; postgres-nio
  /// (1.33.2) writes a query without a promise for the write, so it is dropped silently and the
  /// query never returns: the flush hung for good. A session that ended has rolled back already.
  ///
  /// - Parameters:
  ///   - body: The transaction's work.
  ///   - afterCommit: Runs on the same connection once the transaction committed, with what
  ///     `body` returned.
  private func transaction<Result: Sendable>(
    _ body: (PostgresConnection) async throws -> Result,
    afterCommit: (PostgresConnection, Result) async -> Void = { _, _ in }
  ) async throws(PostgresBackendError) -> Result {
    try checkOpen()
    let logger = logger
    do {
      return try await client.withConnection { connection in
        try await connection.query("BEGIN", logger: logger)
        let result: Result
        do {
          result = try await body(connection)
        } catch {
          let isLost =
            if case .connectionLost = PostgresBackendError(error) { true } else {
              connection.isClosed
            }
          guard isLost else {
            do {
              try await connection.query("ROLLBACK", logger: logger)
            } catch {
              logger.debug("ROLLBACK failed", metadata: ["error": "\(error)"])
            }
            throw error
          }
          // NB: closed for good, and the pool told (it watches `closeFuture`), before the lease
          // is released: otherwise the next flush may lease this dead connection again.
          do {
            try await connection.close()
          } catch {
            logger.debug("closing a lost connection failed", metadata: ["error": "\(error)"])
          }
          do {
            try await connection.closeFuture.get()
          } catch {
            // NB: the close future fails with the loss that is thrown below.
            logger.debug("a lost connection closed", metadata: ["error": "\(error)"])
          }
          throw error
        }
        try await connection.query("COMMIT", logger: logger)
        await afterCommit(connection, result)
        return result
      }
    } catch {
      throw PostgresBackendError(error)
    }
  }

  // MARK: - Migrations

  private func migrate(_ migrations: [PostgresMigration]) async throws(PostgresBackendError) {
    try await transaction { connection in
      // NB: instances opening at once run the migrations one after the other.
      try await connection.query("SELECT pg_advisory_xact_lock(7283946501)", logger: logger)
      try await connection.query(
        """
        CREATE TABLE IF NOT EXISTS reduxkit_migrations (
          identifier text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
        """, logger: logger)
      try await connection.query(
        """
        CREATE TABLE IF NOT EXISTS reduxkit_change_log (
          seq bigserial PRIMARY KEY,
          txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
          table_name text NOT NULL,
          op text NOT NULL,
          origin text NOT NULL,
          entity_ids text[] NOT NULL,
          versions bigint[] NOT NULL,
          written_at timestamptz NOT NULL DEFAULT clock_timestamp())
        """, logger: logger)
      try await connection.query(
        """
        CREATE INDEX IF NOT EXISTS reduxkit_change_log_txid ON reduxkit_change_log (txid, seq)
        """,
        logger: logger)
      // NB: a flush of n rows writes one log row of n ids and n versions, which the server
      // compresses. lz4 took a flush of 10,000 rows about 1 ms less than the default pglz. A
      // server without it (before PostgreSQL 14, or built without lz4) keeps pglz.
      try await connection.query(
        """
        DO $$ BEGIN
          IF EXISTS (
            SELECT 1 FROM pg_attribute
            WHERE attrelid = 'reduxkit_change_log'::regclass
              AND attname IN ('entity_ids', 'versions') AND attcompression <> 'l')
          THEN
            ALTER TABLE reduxkit_change_log
              ALTER COLUMN entity_ids SET COMPRESSION lz4, ALTER COLUMN versions SET COMPRESSION lz4;
          END IF;
        EXCEPTION WHEN undefined_column OR feature_not_supported THEN NULL;
        END $$
        """, logger: logger)
      // Where each instance's feed is: the log keeps what a live feed has not read.
      try await connection.query(
        """
        CREATE TABLE IF NOT EXISTS reduxkit_feed_readers (
          instance text PRIMARY KEY, cursor xid8 NOT NULL, seen_at timestamptz NOT NULL)
        """, logger: logger)
      var applied = Set<String>()
      let rows = try await connection.query(
        "SELECT identifier FROM reduxkit_migrations", logger: logger)
      for try await identifier in rows.decode(String.self) { applied.insert(identifier) }
      let known = Set(migrations.map(\.identifier))
      let unknown = applied.subtracting(known).sorted()
      guard unknown.isEmpty else {
        throw PostgresBackendError.newerSchema(unknownMigrations: unknown)
      }
      for migration in migrations where !applied.contains(migration.identifier) {
        try await migration.migrate(connection)
        try await connection.query(
          "INSERT INTO reduxkit_migrations (identifier) VALUES (\(migration.identifier))",
          logger: logger)
      }
    }
  }

  // MARK: - Reading

  /// Loads every entity of `table` into a store that records no changes (hydration), in the
  /// store's saved order, and remembers each row's version for the next flush.
  ///
  /// - Parameter table: The table to read.
  /// - Returns: The entities, in order.
  /// - Throws: ``PostgresBackendError/undecodable(table:id:underlying:)`` when a row no longer
  ///   decodes (nothing is skipped silently), or the connection's failure.
  public func load<Entity>(
    _ table: PostgresTable<Entity>
  ) async throws(PostgresBackendError) -> EntityStore<Entity> {
    let loaded = try await transaction { connection in
      try await table.load(on: connection, logger: logger)
    }
    book.table(table.name, keyedBy: Entity.ID.self).loaded(
      loaded.versions, positions: loaded.positions)
    return loaded.store
  }

  /// The feed's position now: take it before loading, and ``changes(after:)`` returns every
  /// change the load may have missed (some it already saw, at versions it already has).
  ///
  /// - Returns: The cursor.
  /// - Throws: The connection's failure.
  public func feedCursor() async throws(PostgresBackendError) -> ChangeFeedCursor {
    let instance = instance
    return try await transaction { connection in
      // NB: the feed's bound: every change committed before it has been, or will be, read.
      let rows = try await connection.query(
        PostgresQuery(unsafeSQL: ChangeFeed.bound + " SELECT xmin::text FROM bound"),
        logger: logger)
      var cursor: ChangeFeedCursor?
      for try await xmin in rows.decode(String.self) { cursor = ChangeFeedCursor(xmin: xmin) }
      guard let cursor else { throw PostgresBackendError.other(CancellationError()) }
      // NB: reported at once, so that no other feed prunes what this one has still to read.
      _ = try await ChangeFeed.report(
        cursor, of: instance, retention: .seconds(600), on: connection, logger: logger)
      return cursor
    }
  }

  /// The changes committed since `cursor`, in commit order of their transactions, and the
  /// cursor to read from next.
  ///
  /// It reads up to the oldest transaction still open that can write the change log (a flush):
  /// such a transaction holds the feed back rather than being skipped, and
  /// ``PostgresMetrics/feedHeldBack`` says for how long. Other transactions, however long, do
  /// not.
  ///
  /// - Parameter cursor: Where the previous read ended.
  /// - Returns: The changes (this instance's own included: skip those whose `origin` is
  ///   ``instance``) and the next cursor.
  /// - Throws: The connection's failure.
  public func changes(
    after cursor: ChangeFeedCursor
  ) async throws(PostgresBackendError) -> (records: [ChangeRecord], next: ChangeFeedCursor) {
    let logger = logger
    let (records, next, heldBack) = try await transaction { connection in
      try await ChangeFeed.read(after: cursor, on: connection, logger: logger)
    }
    recordFeedHeldBack(heldBack)
    return (records, next)
  }

  // MARK: - Conflicts

  /// Whose change stands when a conflict is resolved: the same choices as on SQLite.
  public typealias Resolution = ConflictResolution

  /// Resolves a conflict a flush reported; the next flush (the middleware's retry, or
  /// `flush()`) then succeeds for that row.
  ///
  /// - Parameters:
  ///   - conflict: A conflict from ``PostgresBackendError/conflicts(_:)``.
  ///   - resolution: Whose change stands: `.mine` overwrites the server's row at the next
  ///     flush; `.theirs` drops this instance's pending change (load the server's value into
  ///     the state, for instance with ``keepTheirs(_:in:)``).
  public func resolve(_ conflict: PersistenceConflict, keeping resolution: Resolution) {
    book.resolve(conflict, keeping: resolution)
  }

  /// Resolves `conflicts` for the server's rows (as ``resolve(_:keeping:)`` with `.theirs`)
  /// and returns those rows of `table`, for the state: dispatch them and apply them with
  /// `EntityStore.apply(_:)`, as the feed's changes. The next flush drops the local changes.
  ///
  /// - Parameters:
  ///   - conflicts: Conflicts a flush reported; those of other tables are left alone.
  ///   - table: The table whose conflicts to resolve.
  /// - Returns: The server's rows (a deletion where the server deleted the row).
  /// - Throws: ``PostgresBackendError/undecodable(table:id:underlying:)`` when a server row
  ///   does not decode; nothing is resolved then.
  public func keepTheirs<Entity>(
    _ conflicts: [PersistenceConflict], in table: PostgresTable<Entity>
  ) throws(PostgresBackendError) -> RemoteChanges<Entity> {
    try RemoteChanges(
      resolving: conflicts, in: book.table(table.name, keyedBy: Entity.ID.self), key: { $0 },
      id: { Entity.ID($0) },
      decode: { json, id throws(PostgresBackendError) in try table.decode(json, id: id) })
  }

  // MARK: - Writing

  /// Commits every writer's batch of a flush in one transaction, each row at the version this
  /// instance last saw, with one change-log row per entity.
  ///
  /// A row the server refuses for good (a value a column cannot hold, such as a NUL character
  /// in `jsonb`; a constraint it breaks) does not stop the others: the flush is rolled back,
  /// the refused rows are found (each tried alone, in a transaction rolled back too) and
  /// thrown as ``/Persistence/RejectedWrites``, and the middleware commits the rest at once.
  ///
  /// - Parameter batches: The batches, in writer order.
  /// - Throws: ``/Persistence/RejectedWrites`` (nothing written: an entity that does not
  ///   encode, a row the server refuses), ``PostgresBackendError/conflicts(_:)`` (nothing
  ///   written), ``PostgresBackendError/connectionLost(underlying:)``,
  ///   ``PostgresBackendError/closed``.
  public func commit(_ batches: [PostgresBatch]) async throws {
    guard !batches.isEmpty else { return }
    let bases = batches.map { $0.versions.bases(book) }
    let unencodable = batches.enumerated().flatMap { offset, batch in
      batch.writes.compactMap { write -> RejectedWrite? in
        guard case .failure(let error) = write.row else { return nil }
        return RejectedWrite(
          batch: offset, table: batch.table, id: write.id, reason: .unencodable("\(error)"))
      }
    }
    guard unencodable.isEmpty else { throw RejectedWrites(unencodable) }
    do {
      try await write(batches, bases: bases)
    } catch {
      guard error.refusesRows else { throw error }
      let refused = try await refusedRows(of: batches, bases: bases)
      guard !refused.isEmpty else { throw error }
      throw RejectedWrites(refused)
    }
  }

  /// Writes the batches in one transaction, and records what committed.
  private func write(_ batches: [PostgresBatch], bases: [RowBases])
    async throws(PostgresBackendError)
  {
    let instance = instance
    let logger = logger
    let started = ContinuousClock.now
    let outcome: FlushOutcome
    do {
      outcome = try await transaction(
        { [bases] connection in
          // NB: first, before the transaction has an id: the feeds read up to the oldest
          // transaction that holds this lock (see `ChangeFeed.read`).
          try await connection.query(Self.lockTheLog, logger: logger)
          var outcome = FlushOutcome()
          for (batch, bases) in zip(batches, bases) {
            try await FlushWriter(
              batch: batch, connection: connection, instance: instance, logger: logger,
              bases: bases
            ).write(into: &outcome)
          }
          guard outcome.conflicts.isEmpty else {
            throw PostgresBackendError.conflicts(outcome.conflicts)
          }
          return outcome
        },
        afterCommit: { connection, outcome in
          if outcome.written.contains(where: { !$0.isEmpty }) {
            await self.wakeTheOtherInstances(on: connection)
          }
        })
    } catch {
      recorder.flushFailed(error)
      throw error
    }
    recorder.flushCommitted(latency: ContinuousClock.now - started)
    for index in batches.indices {
      batches[index].versions.committed(book, outcome.written[index], bases[index])
    }
  }

  /// The rows of `batches` the server refuses for good, each tried alone in a savepoint of a
  /// transaction that is rolled back: nothing is written.
  ///
  /// - Complexity: O(*c*) statements, the rows of the batches: only after a flush was refused.
  private func refusedRows(
    of batches: [PostgresBatch], bases: [RowBases]
  ) async throws(PostgresBackendError) -> [RejectedWrite] {
    let instance = instance
    let logger = logger
    do {
      try await transaction { connection in
        try await connection.query(Self.lockTheLog, logger: logger)
        var refused: [RejectedWrite] = []
        for (offset, batch) in batches.enumerated() {
          let rows =
            batch.deletions.map { batch.only(deletion: $0) }
            + batch.writes.map { batch.only(write: $0) }
          for row in rows {
            try await connection.query("SAVEPOINT reduxkit_row", logger: logger)
            do {
              var ignored = FlushOutcome()
              try await FlushWriter(
                batch: row, connection: connection, instance: instance, logger: logger,
                bases: bases[offset]
              ).write(into: &ignored)
            } catch {
              let classified = PostgresBackendError(error)
              guard case .server(let state, let message) = classified, classified.refusesRows
              else { throw error }
              refused.append(
                RejectedWrite(
                  batch: offset, table: batch.table,
                  id: row.writes.first?.id ?? row.deletions.first ?? "",
                  isDeletion: row.writes.isEmpty, reason: .refused(code: state, message: message)
                ))
            }
            try await connection.query("ROLLBACK TO SAVEPOINT reduxkit_row", logger: logger)
          }
        }
        // NB: thrown, so that the transaction is rolled back: the diagnosis writes nothing.
        throw Diagnosis(refused: refused)
      }
    } catch {
      guard case .other(let inner) = error, let diagnosis = inner as? Diagnosis else {
        throw error
      }
      return diagnosis.refused
    }
    return []
  }

  /// The statement every transaction that writes the change log runs first.
  static let lockTheLog: PostgresQuery = "LOCK TABLE reduxkit_change_log IN ROW EXCLUSIVE MODE"

  /// What ``refusedRows(of:bases:)`` found, thrown to roll its transaction back.
  private struct Diagnosis: Error {
    let refused: [RejectedWrite]
  }

  /// Wakes the other instances' feeds, after the commit, on the flush's connection: a wake-up
  /// only (the feeds read the log), so the payload is just this instance's name.
  ///
  /// NB: not inside the flush's transaction, where a pending notification takes PostgreSQL's
  /// global notification lock at commit and serializes every instance's commits; and not on
  /// another connection of the pool, whose lease cost a flush of 10,000 rows 3 % of its time.
  /// Lost (a crash right after the commit, a failure here), it only delays: the feeds' polls
  /// read the log too.
  private func wakeTheOtherInstances(on connection: PostgresConnection) async {
    do {
      let rows = try await connection.query(
        "SELECT pg_notify(\(ChangeFeed.channel), \(instance))", logger: logger)
      for try await _ in rows {}
    } catch {
      logger.warning(
        "the other instances were not woken after a flush; their polls will find it",
        metadata: ["error": "\(PostgresBackendError(error))"])
    }
  }

  /// What this database did so far, for an operator: flushes and their latency, conflicts, the
  /// change feed's lag and reconnections.
  public var metrics: PostgresMetrics { recorder.snapshot }

  func recordFeedRead(delivered: Int, lag: Duration) {
    recorder.feedRead(delivered: delivered, lag: lag)
  }

  func recordFeedReconnect() {
    recorder.feedReconnected()
  }

  func recordFeedHeldBack(_ duration: Duration) {
    recorder.feedHeldBack(duration)
  }
}
