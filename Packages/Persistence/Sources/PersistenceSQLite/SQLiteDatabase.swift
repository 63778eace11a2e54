public import EntityTracking
public import GRDB
public import Persistence
import Synchronization

import struct Foundation.Date
import struct Foundation.UUID

/// A SQLite database for persistence: opened in WAL mode, checked, migrated, and able to commit
/// a whole flush of every writer in one transaction.
///
/// ```swift
/// let notes = EntityTable<Note>("notes")
/// let database = try SQLiteDatabase(path: url.path, migrations: [
///   SQLiteMigration("v1") { db in try notes.create(in: db) },
/// ])
///
/// state.notes = try await database.load(notes)
/// let persistence = PersistenceMiddleware(database: database, writers: [
///   StateWriter(keyPath: \.notes, table: notes, database: database),
/// ])
/// // when the app quits:
/// try await persistence.shutdown()
/// try database.close()
/// ```
public final class SQLiteDatabase: Sendable {
  /// The file's path, or `":memory:"`.
  public let path: String
  /// The GRDB connection, for the app's own queries.
  public let writer: any DatabaseWriter
  /// This process's name in the file's change log: the other processes' feeds see its
  /// changes come from it, and its own feed skips them.
  public let instance: String
  /// The versions of the rows this process has seen and writes against.
  @usableFromInline let book = VersionBook()
  /// How long the change log keeps a row: a feed that falls further behind (a process
  /// suspended longer) reads the tables again instead.
  public let changeLogRetention: Duration
  private let isClosed = Mutex(false)
  /// When the change log was last pruned, in seconds since 1970.
  private let lastPrune = Mutex(0.0)

  /// Whether the database was opened read-only (`Configuration.readonly`): it loads, and every
  /// write fails with ``SQLiteDatabaseError/readOnly``.
  public var isReadOnly: Bool { writer.configuration.readonly }

  /// What an open may create.
  public enum Creation: Sendable {
    /// Creates the file when it does not exist (the default). An existing empty file is
    /// refused with ``SQLiteDatabaseError/emptyFile(path:)``: a 0-byte database is most often
    /// a truncated one, and starting a new database in it would hide the loss.
    case ifMissing
    /// Also starts a new database in an existing empty file, for an app that creates the file
    /// itself. An empty file beside a `-wal` file that holds data is still refused.
    case ifMissingOrEmpty
  }

  /// Opens or creates the database at `path`: checks the file first, through a connection that
  /// writes nothing, and only then opens it in WAL mode and migrates it.
  ///
  /// A file refused here is left byte for byte as it was, with no `-wal` or `-shm` file
  /// created beside it. A file accepted is written to only when there is something to do: a
  /// migration to run, or the WAL set up (GRDB starts a missing or empty `-wal` file with one
  /// empty transaction).
  ///
  /// With `configuration.readonly`, the database is opened for reading only: when its
  /// directory cannot be written (read-only media) and no `-wal` file holds data, it is opened
  /// `immutable`, which needs no lock and no `-shm` file. A read-write open of a file that
  /// cannot be written throws ``SQLiteDatabaseError/readOnly`` at once: open it read-only to
  /// load its data.
  ///
  /// - Parameters:
  ///   - path: The database file; created when missing.
  ///   - migrator: The app's schema migrations (create ``EntityTable``s in them).
  ///   - configuration: GRDB options (read-only, `prepareDatabase`). Its `busyMode` is
  ///     replaced by `busyTimeout`.
  ///   - verifiesIntegrity: Runs `PRAGMA quick_check` before using the file, so that a damaged
  ///     database is reported at once rather than at the first read that crosses the damage.
  ///     It reads the whole file: turn it off for databases of many hundreds of megabytes.
  ///   - busyTimeout: How long an access waits for a lock held by another connection (another
  ///     process writing the same file) before failing with ``SQLiteDatabaseError/busy(path:)``.
  ///     `.zero` fails at once.
  ///   - creation: Whether an existing empty file may become a new database.
  ///   - instance: This process's name in the change log (unique among the processes on the
  ///     file); a new random name when `nil`.
  ///   - changeLogRetention: How long the change log keeps a row for the other processes'
  ///     feeds (default: an hour).
  /// - Throws: ``SQLiteDatabaseError/notADatabase(path:)``,
  ///   ``SQLiteDatabaseError/corrupt(path:detail:)``,
  ///   ``SQLiteDatabaseError/newerSchema(path:unknownMigrations:)``,
  ///   ``SQLiteDatabaseError/emptyFile(path:)`` (each leaves the file untouched),
  ///   ``SQLiteDatabaseError/readOnly``, ``SQLiteDatabaseError/diskFull``,
  ///   ``SQLiteDatabaseError/busy(path:)``, ``SQLiteDatabaseError/cannotOpen(path:)``.
  /// - Complexity: O(*n*) in the size of the file when `verifiesIntegrity`; otherwise the cost
  ///   of the migrations left to run.
  public convenience init(
    path: String,
    migrator: DatabaseMigrator,
    configuration: Configuration = Configuration(),
    verifiesIntegrity: Bool = true,
    busyTimeout: Duration = .seconds(5),
    creation: Creation = .ifMissing,
    instance: String? = nil,
    changeLogRetention: Duration = .seconds(3_600)
  ) throws(SQLiteDatabaseError) {
    var configuration = configuration
    configuration.busyMode =
      busyTimeout > .zero ? .timeout(busyTimeout.timeInterval) : .immediateError
    var file = try DatabaseFile(path: path)
    let plan = try file.plan(readOnly: configuration.readonly, creation: creation)
    if case .create = plan {
      try DatabaseFile.create(at: path, migrator: migrator, configuration: configuration)
      file = try DatabaseFile(path: path)
    }
    let isNew = plan == .startInEmptyFile
    if !isNew, file.hasHotJournal {
      // NB: on a copy: a file refused is left as it was, journal included.
      try file.checkBehindHotJournal(
        migrator: migrator, verifiesIntegrity: verifiesIntegrity, configuration: configuration)
    } else if !isNew {
      try file.check(
        migrator: migrator, verifiesIntegrity: verifiesIntegrity, configuration: configuration)
    }
    // NB: one connection (a queue, not GRDB's pool): a pool starts a missing or empty `-wal`
    // file with an empty write transaction, which waits for another process's write lock, so
    // that an open with nothing to do could fail with `busy`. WAL is the file's (its header
    // keeps it): set only when the file is not in WAL mode yet, which is something to do.
    let writer: DatabaseQueue
    do {
      writer = try DatabaseQueue(
        path: file.connectionPath(readOnly: configuration.readonly), configuration: configuration)
      if !configuration.readonly {
        try writer.writeWithoutTransaction { db in
          if try String.fetchOne(db, sql: "PRAGMA journal_mode") != "wal" {
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
          }
          // NB: a commit survives the process's crash; per connection, so no lock.
          try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
      }
    } catch {
      throw SQLiteDatabaseError(error, path: path)
    }
    try self.init(
      path: path, writer: writer, migrator: migrator, instance: instance,
      changeLogRetention: changeLogRetention)
  }

  /// Opens the database at `path` as ``init(path:migrator:configuration:verifiesIntegrity:busyTimeout:creation:instance:changeLogRetention:)``
  /// does, with the app's schema as a list of steps (no GRDB import needed).
  ///
  /// - Parameters:
  ///   - path: The database file; created when missing.
  ///   - migrations: The app's schema steps, in order; each identifier once.
  ///   - configuration: GRDB options (read-only, `prepareDatabase`).
  ///   - verifiesIntegrity: Runs `PRAGMA quick_check` before using the file.
  ///   - busyTimeout: How long an access waits for another connection's lock.
  ///   - creation: Whether an existing empty file may become a new database.
  ///   - instance: This process's name in the change log; a new random name when `nil`.
  ///   - changeLogRetention: How long the change log keeps a row.
  /// - Throws: ``SQLiteDatabaseError/duplicateMigration(_:)`` before anything is opened, or
  ///   what the `migrator:` initializer throws.
  /// - Complexity: As the `migrator:` initializer, plus O(*m*) for *m* migrations.
  public convenience init(
    path: String,
    migrations: [SQLiteMigration],
    configuration: Configuration = Configuration(),
    verifiesIntegrity: Bool = true,
    busyTimeout: Duration = .seconds(5),
    creation: Creation = .ifMissing,
    instance: String? = nil,
    changeLogRetention: Duration = .seconds(3_600)
  ) throws(SQLiteDatabaseError) {
    try self.init(
      path: path, migrator: SQLiteMigration.migrator(migrations), configuration: configuration,
      verifiesIntegrity: verifiesIntegrity, busyTimeout: busyTimeout, creation: creation,
      instance: instance, changeLogRetention: changeLogRetention)
  }

  /// Creates a private in-memory database with the app's schema steps: for tests and previews.
  ///
  /// - Parameters:
  ///   - migrations: The app's schema steps, in order; each identifier once.
  ///   - configuration: GRDB options.
  /// - Returns: The migrated database.
  /// - Throws: ``SQLiteDatabaseError/duplicateMigration(_:)``, or the migration's failure.
  public static func inMemory(
    migrations: [SQLiteMigration], configuration: Configuration = Configuration()
  ) throws(SQLiteDatabaseError) -> SQLiteDatabase {
    try inMemory(migrator: SQLiteMigration.migrator(migrations), configuration: configuration)
  }

  /// Creates a private in-memory database and migrates it: for tests and previews.
  ///
  /// - Parameters:
  ///   - migrator: The app's schema migrations.
  ///   - configuration: GRDB options.
  /// - Returns: The migrated database.
  /// - Throws: The migration's failure, as a ``SQLiteDatabaseError``.
  public static func inMemory(
    migrator: DatabaseMigrator, configuration: Configuration = Configuration()
  ) throws(SQLiteDatabaseError) -> SQLiteDatabase {
    let queue: DatabaseQueue
    do {
      queue = try DatabaseQueue(configuration: configuration)
    } catch {
      throw SQLiteDatabaseError(error, path: ":memory:")
    }
    return try SQLiteDatabase(
      path: ":memory:", writer: queue, migrator: migrator, instance: nil,
      changeLogRetention: .seconds(3_600))
  }

  /// Migrates the opened database when it needs it.
  private init(
    path: String, writer: any DatabaseWriter, migrator: DatabaseMigrator, instance: String?,
    changeLogRetention: Duration
  ) throws(SQLiteDatabaseError) {
    self.path = path
    self.writer = writer
    self.instance = instance ?? Self.newInstanceName()
    self.changeLogRetention = changeLogRetention
    do {
      // NB: read first: an open with nothing to migrate takes no write lock, so it does not
      // wait for (or fail against) another process that is writing.
      if try writer.read({ db in try migrator.hasCompletedMigrations(db) }) { return }
      if writer.configuration.readonly { throw SQLiteDatabaseError.readOnly }
      do {
        try migrator.migrate(writer)
      } catch {
        // Another process opening the same new file may have run the migrations first: its
        // work stands (ours rolled back), and the database is as this app needs it.
        guard try writer.read({ db in try migrator.hasCompletedMigrations(db) }) else {
          throw error
        }
      }
    } catch {
      throw SQLiteDatabaseError(error, path: path)
    }
  }

  // MARK: - Closing

  /// Closes the database's connections. Call it after the middleware's
  /// `PersistenceMiddleware.shutdown()`; until then the middleware keeps the
  /// database alive, since its writers hold it.
  ///
  /// Closing twice does nothing. After it, ``load(_:)`` and every write fail with
  /// ``SQLiteDatabaseError/closed(path:)`` (the changes of a failed flush stay pending in the
  /// middleware).
  ///
  /// - Throws: ``SQLiteDatabaseError/busy(path:)`` when a statement of the app's own queries
  ///   is still running; the database then stays open and usable.
  public func close() throws(SQLiteDatabaseError) {
    let wasClosed = isClosed.withLock { isClosed in
      defer { isClosed = true }
      return isClosed
    }
    guard !wasClosed else { return }
    do {
      // NB: the last connection of the file in this process checkpoints the log into the file
      // and removes it as it closes.
      try writer.close()
    } catch {
      isClosed.withLock { $0 = false }
      throw SQLiteDatabaseError(error, path: path)
    }
  }

  /// Whether ``close()`` was called.
  var hasClosed: Bool { isClosed.withLock { $0 } }

  /// Throws ``SQLiteDatabaseError/closed(path:)`` after ``close()``.
  @usableFromInline
  func checkOpen() throws(SQLiteDatabaseError) {
    if isClosed.withLock({ $0 }) { throw .closed(path: path) }
  }

  /// Classifies `error`; a misuse after ``close()`` (a call that raced with it) is `closed`.
  @usableFromInline
  func classify(_ error: any Error) -> SQLiteDatabaseError {
    if isClosed.withLock({ $0 }) { return .closed(path: path) }
    return SQLiteDatabaseError(error, path: path)
  }

  // MARK: - Reading

  /// Loads every entity of `table` into a store that records no changes (hydration), in the
  /// order the store had when it was saved (see ``EntityTable``).
  ///
  /// - Parameter table: The table to read.
  /// - Returns: The entities, in order.
  /// It also records each row's version: the flushes write against it.
  ///
  /// - Throws: ``SQLiteDatabaseError/undecodable(table:id:underlying:)`` when a row no longer
  ///   decodes (nothing is skipped silently), ``SQLiteDatabaseError/unversionedTable(table:)``
  ///   for a table made by an earlier release, ``SQLiteDatabaseError/closed(path:)`` after
  ///   ``close()``, or the database's failure.
  /// - Complexity: O(*n*), the number of rows.
  @inlinable
  public func load<Entity>(
    _ table: EntityTable<Entity>
  ) async throws(SQLiteDatabaseError) -> EntityStore<Entity> {
    // NB: inlinable, with the table's load: specialized for the app's entity in the app's
    // module, the store and the versions are built with the entity's own hashing; run
    // generic, each id's insertion into them looked up generic metadata, a third of a load.
    try checkOpen()
    let loaded: EntityTable<Entity>.Loaded
    do {
      loaded = try await writer.read { db in try table.load(from: db) }
    } catch {
      throw classify(error)
    }
    book.table(table.name, keyedBy: Entity.ID.self).loaded(
      loaded.versions, positions: loaded.positions)
    return loaded.store
  }

  // MARK: - Writing

  /// Writes a batch of changes to `table` in one transaction of its own, new rows after the
  /// others: for writing outside a ``Persistence/PersistenceMiddleware``.
  ///
  /// A writer that joins the middleware's flush transaction and keeps the store's order is
  /// `StateWriter(keyPath:table:database:)`.
  ///
  /// - Parameter table: The table to write.
  /// - Returns: The function that writes `writes` and removes `deletions`.
  public func persist<Entity>(
    to table: EntityTable<Entity>
  ) -> @Sendable (_ writes: [Entity], _ deletions: [Entity.ID]) async throws -> Void {
    { [self] writes, deletions in
      try await commit([
        SQLiteBatch(EntityChanges(writes: writes, deletions: deletions), into: table)
      ])
    }
  }

  private func write(_ work: @escaping @Sendable (Database) throws -> Void)
    async throws(SQLiteDatabaseError)
  {
    try checkOpen()
    do {
      try await writer.write(work)
    } catch {
      throw classify(error)
    }
  }
}

extension SQLiteDatabase: PersistenceBackend {
  /// Commits every writer's batch of a flush in one SQLite transaction, each row at the version
  /// this process last saw, with one change-log row per entity row: after a crash the database
  /// holds all of a flush or none of it.
  ///
  /// - Parameter batches: The batches, in writer order.
  /// - Throws: ``/Persistence/RejectedWrites`` when rows can never be stored (nothing
  ///   written: the middleware sets them aside and commits the rest),
  ///   ``SQLiteDatabaseError/conflicts(_:)`` (nothing written), or another
  ///   ``SQLiteDatabaseError``: ``SQLiteDatabaseError/closed(path:)`` after ``close()``, a
  ///   locked, full or read-only database.
  /// - Complexity: O(*c*) statements, where *c* is the number of changes in the flush.
  public func commit(_ batches: [SQLiteBatch]) async throws {
    guard !batches.isEmpty else { return }
    try checkOpen()
    let now = Date().timeIntervalSince1970
    let prunes = lastPrune.withLock { last in
      guard now - last >= 60 else { return false }
      last = now
      return true
    }
    let cutoff = now - Double(changeLogRetention.components.seconds)
    let flush: SQLiteFlush
    do {
      flush = try await writer.write { [book, instance] db in
        var flush = SQLiteFlush(book: book, origin: instance, writtenAt: now)
        for (offset, batch) in batches.enumerated() {
          flush.batch = offset
          try batch.apply(db, &flush)
        }
        if !flush.rejected.isEmpty { throw RejectedWrites(flush.rejected) }
        if !flush.conflicts.isEmpty { throw SQLiteDatabaseError.conflicts(flush.conflicts) }
        if prunes, try ChangeLog.exists(in: db) { try ChangeLog.prune(in: db, before: cutoff) }
        return flush
      }
    } catch let refused as RejectedWrites {
      throw refused
    } catch {
      throw classify(error)
    }
    for record in flush.committed { record() }
  }
}

// MARK: - Conflicts

extension SQLiteDatabase {
  /// Resolves a conflict a flush reported; the next flush (the middleware's retry, or
  /// `flush()`) then succeeds for that row.
  ///
  /// - Parameters:
  ///   - conflict: A conflict from ``SQLiteDatabaseError/conflicts(_:)``.
  ///   - resolution: Whose change stands: ``/Persistence/ConflictResolution/mine`` writes over
  ///     the other process's row; ``/Persistence/ConflictResolution/theirs`` drops the local
  ///     change (load the row into the state, with ``keepTheirs(_:in:)``).
  public func resolve(_ conflict: PersistenceConflict, keeping resolution: ConflictResolution) {
    book.resolve(conflict, keeping: resolution)
  }

  /// Resolves `conflicts` for the file's rows (as ``resolve(_:keeping:)`` with `.theirs`) and
  /// returns those rows of `table`, for the state: dispatch them and apply them with
  /// `EntityStore.apply(_:)`, as the feed's changes. The next flush drops the local changes.
  ///
  /// - Parameters:
  ///   - conflicts: Conflicts a flush reported; those of other tables are left alone.
  ///   - table: The table whose conflicts to resolve.
  /// - Returns: The file's rows (a deletion where the row was deleted).
  /// - Throws: ``SQLiteDatabaseError/undecodable(table:id:underlying:)`` when a row does not
  ///   decode; nothing is resolved then.
  /// - Complexity: O(*k*), the conflicts.
  public func keepTheirs<Entity>(
    _ conflicts: [PersistenceConflict], in table: EntityTable<Entity>
  ) throws(SQLiteDatabaseError) -> RemoteChanges<Entity> {
    try RemoteChanges(
      resolving: conflicts, in: book.table(table.name, keyedBy: Entity.ID.self), key: { $0 },
      id: { table.id(described: $0) },
      decode: { json, id throws(SQLiteDatabaseError) in try table.decode(json, id: id) })
  }

  /// A new random name for this process in the change log.
  static func newInstanceName() -> String {
    String(UUID().uuidString.prefix(13).lowercased())
  }
}

extension Duration {
  /// The duration in seconds, as GRDB's busy mode takes it.
  var timeInterval: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
