import EntityTracking
import Foundation
import GRDB
import Persistence
import PersistenceSQLite
import ReduxCoreTesting
import Testing

@MainActor
@Suite struct SQLiteDatabaseTests {
  @Test func opensAFileInWALModeAndMigratesItOnce() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("app.sqlite").path
    let database = try SQLiteDatabase(path: path, migrator: libraryMigrator())
    let mode = try database.writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode")
    }
    #expect(mode == "wal")
    // NORMAL (1), GRDB's WAL default: a committed flush survives a process crash; the
    // durability contract says what a power loss may roll back.
    let synchronous = try database.writer.write { db in
      try Int.fetchOne(db, sql: "PRAGMA synchronous")
    }
    #expect(synchronous == 1)

    let reopened = try SQLiteDatabase(path: path, migrator: libraryMigrator(through: 2))
    let applied = try reopened.writer.read { db in
      try libraryMigrator(through: 2).appliedMigrations(db)
    }
    #expect(applied == ["v1", "v2 archive"])
  }

  @Test func aFlushWritesEveryWriterAndHydrationLoadsItBackWithoutChanges() async throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("app.sqlite").path
    do {
      let database = try SQLiteDatabase(path: path, migrator: libraryMigrator())
      let persistence = middleware(database)
      var library = Library()
      library.tags.upsert(Tag(id: 2, name: "work"))
      library.tags.upsert(Tag(id: 1, name: "home"))
      library.notes.upsert(Note(id: "b", title: "second"))
      library.notes.upsert(Note(id: "a", title: "first"))
      library.notes.upsert(Note(id: "gone", title: "deleted before the flush"))
      persistence.afterReduce(state: &library)
      library.notes.remove("gone")
      library.notes.modify("b") { $0.title = "second, edited" }
      persistence.afterReduce(state: &library)
      try await persistence.shutdown()
    }

    let database = try SQLiteDatabase(path: path, migrator: libraryMigrator())
    let tags = try await database.load(tagTable)
    let notes = try await database.load(noteTable)
    #expect(tags.values == [Tag(id: 2, name: "work"), Tag(id: 1, name: "home")])
    #expect(
      notes.values == [Note(id: "b", title: "second, edited"), Note(id: "a", title: "first")])
    #expect(!tags.hasChanges && !notes.hasChanges)
  }

  @Test func rowsKeepTheOrderTheyWereFirstWritten() async throws {
    let database = try SQLiteDatabase.inMemory(migrator: libraryMigrator())
    let persist = database.persist(to: tagTable)
    try await persist([Tag(id: 3, name: "c"), Tag(id: 1, name: "a")], [])
    try await persist([Tag(id: 2, name: "b"), Tag(id: 3, name: "c2")], [])
    try await persist([], [1])
    try await persist([Tag(id: 1, name: "a again")], [])
    #expect(try await database.load(tagTable).ids == [3, 2, 1])
  }

  @Test func aFlushIsOneTransactionAcrossWriters() async throws {
    let database = try SQLiteDatabase.inMemory(migrator: libraryMigrator())
    let persistence = middleware(database)
    var library = Library()
    library.tags.upsert(Tag(id: 1, name: "home"))
    library.notes.upsert(Note(id: "a", title: "fine"))
    persistence.afterReduce(state: &library)
    // The notes table is gone: the tags writer runs first and succeeds, the notes writer
    // fails, and nothing is committed.
    try await database.writer.write { db in try db.execute(sql: "ALTER TABLE notes RENAME TO gone")
    }

    #expect(await flushFailure(persistence) != nil)
    #expect(try count("tags", in: database) == 0)
    #expect(persistence.status.pendingCount == 2)
    let failure = try #require(persistence.status.lastError as? SQLiteDatabaseError)
    guard case .sqlite(let error) = failure, error.message?.contains("notes") == true else {
      Issue.record("unexpected \(failure)")
      return
    }

    try await database.writer.write { db in try db.execute(sql: "ALTER TABLE gone RENAME TO notes")
    }
    try await persistence.flush()
    #expect(try count("tags", in: database) == 1)
    #expect(try count("notes", in: database) == 1)
    #expect(persistence.status.pendingCount == 0)
    try await persistence.shutdown()
  }

  @Test func anEntityThatDoesNotEncodeIsSetAsideAndTheRestCommits() async throws {
    let database = try SQLiteDatabase.inMemory(migrator: libraryMigrator())
    let persistence = middleware(database)
    var library = Library()
    library.tags.upsert(Tag(id: 1, name: "home"))
    library.notes.upsert(Note(id: "a", title: "fine"))
    library.notes.upsert(Note(id: "b", title: "broken", score: .nan))
    persistence.afterReduce(state: &library)

    // Reported once, with its id; the others commit.
    let failure = await flushFailure(persistence)
    guard case .rejected(let rejected) = failure, rejected.count == 1 else {
      Issue.record("unexpected \(String(describing: failure))")
      return
    }
    #expect(rejected[0].table == "notes" && rejected[0].id == "b")
    guard case .unencodable = rejected[0].reason else {
      Issue.record("unexpected \(rejected[0].reason)")
      return
    }
    #expect(try count("tags", in: database) == 1)
    #expect(try count("notes", in: database) == 1)
    #expect(persistence.status.rejected == rejected)
    #expect(persistence.status.pendingCount == 0)
    // Set aside: a later flush neither retries it nor reports it again.
    library.tags.upsert(Tag(id: 2, name: "work"))
    persistence.afterReduce(state: &library)
    try await persistence.flush()
    #expect(try count("tags", in: database) == 2)
    #expect(persistence.status.rejected == rejected)

    // Fixed in the state: the new value replaces the refused write.
    library.notes.modify("b") { $0.score = 1 }
    persistence.afterReduce(state: &library)
    #expect(persistence.status.rejected.isEmpty)
    try await persistence.flush()
    #expect(try count("notes", in: database) == 2)
    try await persistence.shutdown()
  }

  @Test func aRefusedWriteIsRetriedOrDiscardedWhenTheAppSaysSo() async throws {
    let database = try SQLiteDatabase.inMemory(migrator: libraryMigrator())
    let persistence = middleware(database)
    // A rule of the app's schema the write breaks: SQLite refuses the row.
    try await database.writer.write { db in
      try db.execute(
        sql: """
          CREATE TRIGGER no_secrets BEFORE INSERT ON notes
          WHEN NEW.title = 'secret'
          BEGIN SELECT RAISE(ABORT, 'no secrets'); END
          """)
    }
    var library = Library()
    library.notes.upsert(Note(id: "a", title: "secret"))
    library.notes.upsert(Note(id: "b", title: "public"))
    persistence.afterReduce(state: &library)
    guard case .rejected(let rejected) = await flushFailure(persistence) else {
      Issue.record("expected a rejection")
      return
    }
    #expect(rejected.map(\.id) == ["a"])
    guard case .refused(_, let message) = rejected[0].reason else {
      Issue.record("unexpected \(rejected[0].reason)")
      return
    }
    #expect(message.contains("no secrets"))
    #expect(try count("notes", in: database) == 1)

    // Kept for later: retried once the rule allows it.
    try await database.writer.write { db in try db.execute(sql: "DROP TRIGGER no_secrets") }
    persistence.retryRejected()
    #expect(persistence.status.rejected.isEmpty && persistence.status.pendingCount == 1)
    try await persistence.flush()
    #expect(try count("notes", in: database) == 2)

    // Discarded: never written.
    library.notes.upsert(Note(id: "c", title: "broken", score: .nan))
    persistence.afterReduce(state: &library)
    #expect(await flushFailure(persistence) != nil)
    persistence.discardRejected(persistence.status.rejected)
    #expect(persistence.status.rejected.isEmpty && persistence.status.pendingCount == 0)
    try await persistence.flush()
    #expect(try count("notes", in: database) == 2)
    try await persistence.shutdown()
  }

  @Test func aFullDiskFailsTheFlushAndLosesNothing() async throws {
    let directory = try TemporaryDirectory()
    let database = try SQLiteDatabase(
      path: directory.file("full.sqlite").path, migrator: libraryMigrator())
    let persistence = middleware(database)
    var library = Library()
    library.tags.upsert(Tag(id: 1, name: "kept"))
    persistence.afterReduce(state: &library)
    try await persistence.flush()

    // Cap the file at its current size: the next large flush cannot fit.
    try await database.writer.write { db in
      let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
      try db.execute(sql: "PRAGMA max_page_count = \(pages + 1)")
    }
    for index in 0..<500 {
      library.notes.upsert(Note(id: "n\(index)", title: String(repeating: "x", count: 200)))
    }
    persistence.afterReduce(state: &library)
    #expect(await flushFailure(persistence) != nil)
    guard case .diskFull? = persistence.status.lastError as? SQLiteDatabaseError else {
      Issue.record("expected diskFull, got \(String(describing: persistence.status.lastError))")
      return
    }
    #expect(persistence.status.pendingCount == 500)
    #expect(try await database.load(tagTable).values == [Tag(id: 1, name: "kept")])

    // Space is freed: the pending changes go through.
    try await database.writer.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA max_page_count = 1073741823")
    }
    try await persistence.shutdown()
    #expect(try count("notes", in: database) == 500)
  }

  @Test func aReadOnlyDatabaseFailsTheFlushWithATypedError() async throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("app.sqlite").path
    _ = try SQLiteDatabase(path: path, migrator: libraryMigrator())
    var configuration = Configuration()
    configuration.readonly = true
    let database = try SQLiteDatabase(
      path: path, migrator: libraryMigrator(), configuration: configuration)
    let persistence = middleware(database)
    var library = Library()
    library.tags.upsert(Tag(id: 1, name: "home"))
    persistence.afterReduce(state: &library)

    do {
      try await persistence.flush()
      Issue.record("a read-only database accepted a flush")
    } catch {
      guard case .flushFailed(let underlying, pending: 1) = error,
        case .readOnly? = underlying as? SQLiteDatabaseError
      else {
        Issue.record("unexpected \(error)")
        return
      }
    }
    // Pending work is lost only if the app drops it: say so instead of logging at release.
    #expect(persistence.status.pendingCount == 1)
  }

  @Test func aRowThatNoLongerDecodesFailsTheLoadWithItsId() async throws {
    let database = try SQLiteDatabase.inMemory(migrator: libraryMigrator())
    try await database.writer.write { db in
      try db.execute(sql: "INSERT INTO tags (id, name) VALUES (7, NULL)")
    }
    await #expect {
      try await database.load(tagTable)
    } throws: { error in
      if case .undecodable(table: "tags", id: "7", _)? = error as? SQLiteDatabaseError {
        true
      } else {
        false
      }
    }
  }

  /// The error `flush()` threw, or `nil` when it succeeded.
  private func flushFailure(_ persistence: PersistenceMiddleware<Library>) async
    -> PersistenceMiddlewareError?
  {
    do {
      try await persistence.flush()
      return nil
    } catch {
      return error
    }
  }

  private func middleware(_ database: SQLiteDatabase) -> PersistenceMiddleware<Library> {
    PersistenceMiddleware(
      database: database,
      writers: [
        StateWriter(keyPath: \.tags, table: tagTable, database: database),
        StateWriter(keyPath: \.notes, table: noteTable, database: database),
      ], clock: ManualClock())
  }
}
