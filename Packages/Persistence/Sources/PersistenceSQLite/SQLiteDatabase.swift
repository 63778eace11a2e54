public import EntityTracking
public import GRDB
public import Persistence

/// A SQLite database for persistence: opened in WAL mode, migrated, checked, and able to commit
/// a whole flush of every writer in one transaction.
///
/// ```swift
/// let notes = EntityTable<Note>("notes")
/// var migrator = DatabaseMigrator()
/// migrator.registerMigration("v1") { db in try notes.create(in: db) }
/// let database = try SQLiteDatabase(path: url.path, migrator: migrator)
///
/// state.notes = try await database.load(notes)
/// let persistence = PersistenceMiddleware(database: database, writers: [
///   StateWriter(keyPath: \.notes, table: notes, database: database),
/// ])
/// ```
public final class SQLiteDatabase: Sendable {
  /// The file's path, or `":memory:"`.
  public let path: String
  /// The GRDB connection, for the app's own queries.
  public let writer: any DatabaseWriter

  /// Opens or creates the database at `path` in WAL mode, checks it and migrates it.
  ///
  /// - Parameters:
  ///   - path: The database file; created when missing.
  ///   - migrator: The app's schema migrations (create ``EntityTable``s in them).
  ///   - configuration: GRDB options (read-only, busy mode, `prepareDatabase`).
  ///   - verifiesIntegrity: Runs `PRAGMA quick_check` before using the file, so that a damaged
  ///     database is reported at once rather than at the first read that crosses the damage.
  ///     It reads the whole file: turn it off for databases of many hundreds of megabytes.
  /// - Throws: ``SQLiteDatabaseError/notADatabase(path:)``,
  ///   ``SQLiteDatabaseError/corrupt(path:detail:)``,
  ///   ``SQLiteDatabaseError/newerSchema(path:unknownMigrations:)`` (the file is left
  ///   untouched), ``SQLiteDatabaseError/readOnly``, ``SQLiteDatabaseError/cannotOpen(path:)``.
  /// - Complexity: O(*f*) for the integrity check, where *f* is the size of the file, plus the
  ///   migrations not applied yet.
  public convenience init(
    path: String,
    migrator: DatabaseMigrator,
    configuration: Configuration = Configuration(),
    verifiesIntegrity: Bool = true
  ) throws(SQLiteDatabaseError) {
    let pool: DatabasePool
    do {
      pool = try DatabasePool(path: path, configuration: configuration)
    } catch {
      throw SQLiteDatabaseError(error, path: path)
    }
    try self.init(
      path: path, writer: pool, migrator: migrator, verifiesIntegrity: verifiesIntegrity)
  }

  /// Creates a private in-memory database and migrates it: for tests and previews.
  ///
  /// - Parameters:
  ///   - migrator: The app's schema migrations.
  ///   - configuration: GRDB options.
  /// - Returns: An empty, migrated database that lives as long as the returned value.
  /// - Throws: ``SQLiteDatabaseError`` when a migration fails.
  /// - Complexity: The cost of the migrations.
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
      path: ":memory:", writer: queue, migrator: migrator, verifiesIntegrity: false)
  }

  private init(
    path: String, writer: any DatabaseWriter, migrator: DatabaseMigrator, verifiesIntegrity: Bool
  ) throws(SQLiteDatabaseError) {
    self.path = path
    self.writer = writer
    do {
      if verifiesIntegrity {
        let problems = try writer.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
        if problems != ["ok"] {
          throw SQLiteDatabaseError.corrupt(path: path, detail: problems.joined(separator: "; "))
        }
      }
      let unknown = try writer.read { db in
        try migrator.appliedIdentifiers(db).subtracting(migrator.migrations).sorted()
      }
      if !unknown.isEmpty {
        throw SQLiteDatabaseError.newerSchema(path: path, unknownMigrations: unknown)
      }
      try migrator.migrate(writer)
    } catch {
      throw SQLiteDatabaseError(error, path: path)
    }
  }

  // MARK: - Reading

  /// Loads every entity of `table` into a store that records no changes (hydration), in the
  /// order the entities were first written.
  ///
  /// - Parameter table: The table to read.
  /// - Returns: Every entity of the table, in first-written order, with no recorded change.
  /// - Throws: ``SQLiteDatabaseError/undecodable(table:id:underlying:)`` when a row no longer
  ///   decodes (nothing is skipped silently), or the database's failure.
  /// - Complexity: O(*n*) rows read and decoded, where *n* is the number of rows.
  public func load<Entity>(
    _ table: EntityTable<Entity>
  ) async throws(SQLiteDatabaseError) -> EntityStore<Entity> {
    do {
      return try await writer.read { db in try table.load(from: db) }
    } catch {
      throw SQLiteDatabaseError(error, path: path)
    }
  }

  // MARK: - Writing

  /// Commits every writer's batch of a flush in one transaction: after a crash the database
  /// holds all of a flush or none of it.
  /// ``Persistence/PersistenceMiddleware/init(database:writers:debounce:maxWait:retry:loopThreshold:clock:logger:)``
  /// sets it for you.
  ///
  /// Committing costs O(*c*) statements, where *c* is the number of changes in the flush.
  public var flushTransaction: FlushTransaction {
    FlushTransaction(commitAsOne)
  }

  /// Runs `body` with writes to this database staged, then commits them in one transaction.
  private func commitAsOne(_ body: () async throws -> Void) async throws {
    let staging = FlushStaging(database: ObjectIdentifier(self))
    try await FlushStaging.$current.withValue(staging) {
      try await body()
    }
    let work = staging.take()
    guard !work.isEmpty else { return }
    try await write { db in
      for step in work { try step(db) }
    }
  }

  /// The `persist` function of a writer for `table`: inside a ``flushTransaction`` it joins the
  /// flush's transaction; on its own it commits one transaction per call.
  ///
  /// - Parameter table: The table the writes and deletions go to.
  /// - Returns: A function that upserts `writes` and deletes `deletions`. It throws a
  ///   ``SQLiteDatabaseError`` (``SQLiteDatabaseError/unencodable(table:id:underlying:)`` for an
  ///   entity that does not encode) and then writes nothing.
  /// - Complexity: Each call costs O(*w* + *d*) statements, for *w* writes and *d* deletions,
  ///   plus encoding the written entities.
  public func persist<Entity>(
    to table: EntityTable<Entity>
  ) -> @Sendable (_ writes: [Entity], _ deletions: [Entity.ID]) async throws -> Void {
    { [self] writes, deletions in
      let work: FlushStaging.Work = { db in
        try table.apply(writes: writes, deletions: deletions, in: db)
      }
      if let staging = FlushStaging.current, staging.database == ObjectIdentifier(self) {
        staging.stage(work)
      } else {
        try await write(work)
      }
    }
  }

  private func write(_ work: @escaping FlushStaging.Work) async throws(SQLiteDatabaseError) {
    do {
      try await writer.write(work)
    } catch {
      throw SQLiteDatabaseError(error, path: path)
    }
  }
}
