import EntityTracking
import Foundation
import GRDB
import Persistence
import ReduxCoreTesting
import Testing

@testable import PersistenceSQLite

#if canImport(Glibc)
  import Glibc
#endif

/// Bad input at open: every refused file is left byte for byte as it was, with no `-wal` or
/// `-shm` file created beside it; every refusal is a typed error.
@MainActor
@Suite struct SQLiteDatabaseOpeningTests {
  /// A database of one tag, closed cleanly (no `-wal` file left), at `directory/app.sqlite`.
  private func savedDatabase(
    in directory: URL, migrator: DatabaseMigrator = libraryMigrator()
  ) async throws -> URL {
    let file = directory.appendingPathComponent("app.sqlite")
    let database = try SQLiteDatabase(path: file.path, migrator: migrator)
    try await database.persist(to: tagTable)([Tag(id: 1, name: "home")], [])
    try database.close()
    return file
  }

  /// A connection that may hold a transaction open across accesses.
  private func lockHolder(_ file: URL) throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.allowsUnsafeTransactions = true
    return try DatabaseQueue(path: file.path, configuration: configuration)
  }

  private func expectRefusal(
    _ open: @autoclosure () throws -> SQLiteDatabase,
    leaves directory: URL,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ matches: (SQLiteDatabaseError) -> Bool
  ) throws {
    let before = try FileSnapshot(directory)
    do {
      _ = try open()
      Issue.record("the open was not refused", sourceLocation: sourceLocation)
    } catch let error as SQLiteDatabaseError {
      #expect(matches(error), "unexpected \(error)", sourceLocation: sourceLocation)
    }
    let after = try FileSnapshot(directory)
    #expect(
      after == before, "before: \(before); after: \(after)", sourceLocation: sourceLocation)
  }

  @Test func aCorruptFileIsRefusedAndLeftByteForByte() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("app.sqlite")
    do {
      let database = try SQLiteDatabase(path: file.path, migrator: libraryMigrator())
      let notes = (0..<2_000).map { Note(id: "n\($0)", title: String(repeating: "x", count: 100)) }
      try await database.persist(to: noteTable)(notes, [])
      try database.close()
    }
    let handle = try FileHandle(forUpdating: file)
    try handle.seek(toOffset: 4_096 * 8)
    try handle.write(contentsOf: Data(repeating: 0xA5, count: 4_096 * 4))
    try handle.close()

    try expectRefusal(
      try SQLiteDatabase(path: file.path, migrator: libraryMigrator()),
      leaves: directory.url
    ) { error in
      if case .corrupt(path: file.path, _) = error { true } else { false }
    }
  }

  @Test func aNewerSchemaIsRefusedAndLeftByteForByte() async throws {
    let directory = try TemporaryDirectory()
    let file = try await savedDatabase(in: directory.url, migrator: libraryMigrator(through: 2))
    try expectRefusal(
      try SQLiteDatabase(path: file.path, migrator: libraryMigrator(through: 1)),
      leaves: directory.url
    ) { error in
      if case .newerSchema(path: file.path, unknownMigrations: ["v2 archive"]) = error {
        true
      } else {
        false
      }
    }
    // The newer app still opens it as it left it.
    let newer = try SQLiteDatabase(path: file.path, migrator: libraryMigrator(through: 2))
    #expect(try await newer.load(tagTable).values == [Tag(id: 1, name: "home")])
  }

  @Test func aNewerSchemaLeftByACrashIsRefusedWithItsLogUntouched() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("app.sqlite")
    // Copies of the files of an open database: what a crash leaves (the data is in the -wal).
    let crashed = try TemporaryDirectory()
    do {
      let newer = try SQLiteDatabase(path: file.path, migrator: libraryMigrator(through: 2))
      try await newer.persist(to: tagTable)([Tag(id: 1, name: "home")], [])
      for name in ["app.sqlite", "app.sqlite-wal", "app.sqlite-shm"] {
        try FileManager.default.copyItem(at: directory.file(name), to: crashed.file(name))
      }
    }
    let crashedFile = crashed.file("app.sqlite")
    let before = try FileSnapshot(crashed.url)
    #expect {
      try SQLiteDatabase(path: crashedFile.path, migrator: libraryMigrator(through: 1))
    } throws: { error in
      if case .newerSchema? = error as? SQLiteDatabaseError { true } else { false }
    }
    // NB: reading a -wal goes through its -shm index, which readers write (read marks): the
    // database and its log are what must not change.
    let after = try FileSnapshot(crashed.url)
    #expect(after.files.keys.sorted() == before.files.keys.sorted())
    #expect(after.files["app.sqlite"] == before.files["app.sqlite"])
    #expect(after.files["app.sqlite-wal"] == before.files["app.sqlite-wal"])
    let newer = try SQLiteDatabase(
      path: crashedFile.path, migrator: libraryMigrator(through: 2))
    #expect(try await newer.load(tagTable).values == [Tag(id: 1, name: "home")])
  }

  @Test func aFileThatIsNotADatabaseIsRefusedAndLeftByteForByte() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("notes.sqlite")
    try Data(String(repeating: "not a database\n", count: 200).utf8).write(to: file)
    try expectRefusal(
      try SQLiteDatabase(path: file.path, migrator: libraryMigrator()),
      leaves: directory.url
    ) { error in
      if case .notADatabase(path: file.path) = error { true } else { false }
    }
    // A header cut short is not a database either.
    try Data(Array("SQLite format 3\0".utf8)).write(to: file)
    try expectRefusal(
      try SQLiteDatabase(path: file.path, migrator: libraryMigrator()),
      leaves: directory.url
    ) { error in
      if case .notADatabase(path: file.path) = error { true } else { false }
    }
  }

  @Test func anEmptyFileIsRefusedUnlessTheAppAsksToCreateInIt() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("app.sqlite")
    try Data().write(to: file)
    try expectRefusal(
      try SQLiteDatabase(path: file.path, migrator: libraryMigrator()),
      leaves: directory.url
    ) { error in
      if case .emptyFile(path: file.path) = error { true } else { false }
    }
    var readOnly = Configuration()
    readOnly.readonly = true
    try expectRefusal(
      try SQLiteDatabase(
        path: file.path, migrator: libraryMigrator(), configuration: readOnly,
        creation: .ifMissingOrEmpty),
      leaves: directory.url
    ) { error in
      if case .emptyFile(path: file.path) = error { true } else { false }
    }

    let created = try SQLiteDatabase(
      path: file.path, migrator: libraryMigrator(), creation: .ifMissingOrEmpty)
    try await created.persist(to: tagTable)([Tag(id: 1, name: "home")], [])
    #expect(try await created.load(tagTable).count == 1)
  }

  @Test func anEmptyFileBesideALogThatHoldsDataIsRefusedEvenWhenCreationIsAllowed() async throws {
    // SQLite deletes the -wal of a 0-byte database when it opens it: the log may be all that
    // is left of the data.
    let directory = try TemporaryDirectory()
    let file = directory.file("app.sqlite")
    let database = try SQLiteDatabase(path: file.path, migrator: libraryMigrator())
    try await database.persist(to: tagTable)([Tag(id: 1, name: "home")], [])
    let log = try Data(contentsOf: directory.file("app.sqlite-wal"))
    try database.close()
    try Data().write(to: file)
    try log.write(to: directory.file("app.sqlite-wal"))
    #expect(log.count > 0)

    try expectRefusal(
      try SQLiteDatabase(
        path: file.path, migrator: libraryMigrator(), creation: .ifMissingOrEmpty),
      leaves: directory.url
    ) { error in
      if case .emptyFile(path: file.path) = error { true } else { false }
    }
  }

  @Test func anAcceptedFileWithNothingToMigrateIsOpenedWithoutAWrite() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("app.sqlite")
    let first = try SQLiteDatabase(path: file.path, migrator: libraryMigrator())
    try await first.persist(to: tagTable)([Tag(id: 1, name: "home")], [])

    // Another connection holds the write lock: an open with nothing to do does not wait for it.
    let other = try lockHolder(file)
    try await other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
    let second = try SQLiteDatabase(
      path: file.path, migrator: libraryMigrator(), busyTimeout: .zero)
    #expect(try await second.load(tagTable).count == 1)

    // Its writes meet the lock: with no busy timeout, a typed error at once.
    await #expect {
      try await second.persist(to: tagTable)([Tag(id: 2, name: "work")], [])
    } throws: { error in
      if case .busy(path: file.path)? = error as? SQLiteDatabaseError { true } else { false }
    }
    try await other.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
    try await second.persist(to: tagTable)([Tag(id: 2, name: "work")], [])
    #expect(try await first.load(tagTable).count == 2)
  }

  @Test func aWriteWaitsOutAnotherConnectionsLockWithinTheBusyTimeout() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("app.sqlite")
    let database = try SQLiteDatabase(path: file.path, migrator: libraryMigrator())
    guard case .timeout(let seconds) = database.writer.configuration.busyMode else {
      Issue.record("no busy timeout by default")
      return
    }
    #expect(seconds == 5)
    let other = try lockHolder(file)
    try await other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }

    // Wherever the write is when the lock goes, it completes: before, it waits; after, it
    // finds the lock free.
    let write = Task { try await database.persist(to: tagTable)([Tag(id: 1, name: "home")], []) }
    try await other.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
    try await write.value
    #expect(try count("tags", in: database) == 1)
  }

  @Test func aReadOnlyOpenOfAWritableDirectoryReadsAndRefusesWritesWithATypedError()
    async throws
  {
    let directory = try TemporaryDirectory()
    let file = try await savedDatabase(in: directory.url)
    var configuration = Configuration()
    configuration.readonly = true
    let database = try SQLiteDatabase(
      path: file.path, migrator: libraryMigrator(), configuration: configuration)
    #expect(database.isReadOnly)
    #expect(try await database.load(tagTable).values == [Tag(id: 1, name: "home")])
    await #expect {
      try await database.persist(to: tagTable)([Tag(id: 2, name: "work")], [])
    } throws: { error in
      if case .readOnly? = error as? SQLiteDatabaseError { true } else { false }
    }
  }

  @Test(.enabled(if: ReadOnlyMedia.isAvailable, ReadOnlyMedia.unavailableReason))
  func aDatabaseOnReadOnlyMediaLoadsReadOnlyAndRefusesWritesWithATypedError() async throws {
    let source = try TemporaryDirectory()
    let saved = try await savedDatabase(in: source.url)
    let media = try ReadOnlyCopy(of: [saved])
    let file = media.file("app.sqlite")
    let before = try FileSnapshot(media.url)

    // Asked to write, the open says at once that it cannot, and touches nothing.
    #expect {
      try SQLiteDatabase(path: file.path, migrator: libraryMigrator())
    } throws: { error in
      if case .readOnly? = error as? SQLiteDatabaseError { true } else { false }
    }

    var configuration = Configuration()
    configuration.readonly = true
    let database = try SQLiteDatabase(
      path: file.path, migrator: libraryMigrator(), configuration: configuration)
    #expect(try await database.load(tagTable).values == [Tag(id: 1, name: "home")])
    await #expect {
      try await database.persist(to: tagTable)([Tag(id: 2, name: "work")], [])
    } throws: { error in
      if case .readOnly? = error as? SQLiteDatabaseError { true } else { false }
    }
    try database.close()
    #expect(try FileSnapshot(media.url) == before)
  }

  @Test(.enabled(if: ReadOnlyMedia.isAvailable, ReadOnlyMedia.unavailableReason))
  func aLogThatHoldsDataOnReadOnlyMediaIsReadNotIgnored() async throws {
    let source = try TemporaryDirectory()
    let file = source.file("app.sqlite")
    // Copied while the database is open: the last commit is only in the -wal file.
    let database = try SQLiteDatabase(path: file.path, migrator: libraryMigrator())
    try await database.persist(to: tagTable)([Tag(id: 1, name: "home")], [])
    try await database.persist(to: tagTable)([Tag(id: 2, name: "work")], [])
    let media = try ReadOnlyCopy(of: [
      file, source.file("app.sqlite-wal"), source.file("app.sqlite-shm"),
    ])

    var configuration = Configuration()
    configuration.readonly = true
    let copy = try SQLiteDatabase(
      path: media.file("app.sqlite").path, migrator: libraryMigrator(),
      configuration: configuration)
    #expect(try await copy.load(tagTable).ids == [1, 2])
  }

  @Test(.enabled(if: ReadOnlyMedia.isAvailable, ReadOnlyMedia.unavailableReason))
  func aLogWithoutItsIndexOnReadOnlyMediaIsRefusedRatherThanIgnored() async throws {
    let source = try TemporaryDirectory()
    let file = source.file("app.sqlite")
    let database = try SQLiteDatabase(path: file.path, migrator: libraryMigrator())
    try await database.persist(to: tagTable)([Tag(id: 1, name: "home")], [])
    // The -shm index cannot be made on read-only media, and opening immutable would skip the
    // commits in the -wal file.
    let media = try ReadOnlyCopy(of: [file, source.file("app.sqlite-wal")])
    var configuration = Configuration()
    configuration.readonly = true
    #expect {
      try SQLiteDatabase(
        path: media.file("app.sqlite").path, migrator: libraryMigrator(),
        configuration: configuration)
    } throws: { error in
      if case .cannotOpen? = error as? SQLiteDatabaseError { true } else { false }
    }
  }

  @Test func aRollbackJournalLeftByACrashIsRolledBackNotRefused() async throws {
    // A database in rollback-journal mode, copied in the middle of a newer app's migration
    // that had already written pages into the file: what a crash leaves. An immutable check
    // would read the half-written file and see the newer migration; the open rolls the
    // journal back first, then checks, and finds the database as this app left it.
    let source = try TemporaryDirectory()
    let file = source.file("app.sqlite")
    var configuration = Configuration()
    configuration.allowsUnsafeTransactions = true
    let queue = try DatabaseQueue(path: file.path, configuration: configuration)
    try libraryMigrator().migrate(queue)
    try await queue.write { db in
      try db.execute(sql: #"INSERT INTO tags (id, name) VALUES (1, 'home')"#)
    }
    try await queue.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA cache_size = 1")
      try db.execute(sql: "BEGIN")
      try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v2 archive')")
      for index in 0..<200 {
        try db.execute(
          sql: "INSERT INTO notes (id, title, score) VALUES (?, ?, 0)",
          arguments: ["n\(index)", String(repeating: "x", count: 2_000)])
      }
    }
    let crashed = try TemporaryDirectory()
    for name in ["app.sqlite", "app.sqlite-journal"] {
      try FileManager.default.copyItem(at: source.file(name), to: crashed.file(name))
    }
    try await queue.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
    // The copy holds the newer migration in its pages, and the journal that undoes it.
    let halfWritten = try DatabaseQueue(
      path: "file:\(crashed.file("app.sqlite").path)?immutable=1")
    let seen = try await halfWritten.read { db in
      try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
    }
    try #require(seen.contains("v2 archive"))

    let database = try SQLiteDatabase(
      path: crashed.file("app.sqlite").path, migrator: libraryMigrator())
    #expect(try await database.load(tagTable).values == [Tag(id: 1, name: "home")])
    #expect(try await database.load(noteTable).isEmpty)
  }

  @Test func aNewerSchemaBehindARollbackJournalIsRefusedEvenWithoutTheIntegrityCheck()
    async throws
  {
    // The newer app's migration committed; a later transaction of its was cut by a crash.
    let source = try TemporaryDirectory()
    let file = source.file("app.sqlite")
    var configuration = Configuration()
    configuration.allowsUnsafeTransactions = true
    let queue = try DatabaseQueue(path: file.path, configuration: configuration)
    try libraryMigrator(through: 2).migrate(queue)
    try await queue.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA cache_size = 1")
      try db.execute(sql: "BEGIN")
      for index in 0..<200 {
        try db.execute(
          sql: "INSERT INTO notes (id, title, score) VALUES (?, ?, 0)",
          arguments: ["n\(index)", String(repeating: "x", count: 2_000)])
      }
    }
    let crashed = try TemporaryDirectory()
    for name in ["app.sqlite", "app.sqlite-journal"] {
      try FileManager.default.copyItem(at: source.file(name), to: crashed.file(name))
    }
    try await queue.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }

    // Refused on a copy: the file and its journal are left byte for byte as they were.
    try expectRefusal(
      try SQLiteDatabase(
        path: crashed.file("app.sqlite").path, migrator: libraryMigrator(through: 1),
        verifiesIntegrity: false),
      leaves: crashed.url
    ) { error in
      if case .newerSchema(_, unknownMigrations: ["v2 archive"]) = error { true } else { false }
    }
    #expect(FileManager.default.fileExists(atPath: crashed.file("app.sqlite-journal").path))
  }

  @Test func aCorruptFileBehindARollbackJournalIsRefusedWithItsJournalUntouched() async throws {
    let source = try TemporaryDirectory()
    let file = source.file("app.sqlite")
    var configuration = Configuration()
    configuration.allowsUnsafeTransactions = true
    let queue = try DatabaseQueue(path: file.path, configuration: configuration)
    try libraryMigrator().migrate(queue)
    try await queue.write { db in
      for index in 0..<400 {
        try db.execute(
          sql: "INSERT INTO notes (id, title, score) VALUES (?, ?, 0)",
          arguments: ["n\(index)", String(repeating: "x", count: 2_000)])
      }
    }
    // A transaction cut by a crash: it changed a few pages, which the journal keeps.
    try await queue.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA cache_size = 1")
      try db.execute(sql: "BEGIN")
      try db.execute(sql: "UPDATE notes SET title = 'changed' WHERE id = 'n0'")
      try db.execute(sql: "INSERT INTO tags (id, name) VALUES (1, 'x')")
    }
    let crashed = try TemporaryDirectory()
    for name in ["app.sqlite", "app.sqlite-journal"] {
      try FileManager.default.copyItem(at: source.file(name), to: crashed.file(name))
    }
    try await queue.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
    // Damage far from the pages the journal restores.
    let handle = try FileHandle(forUpdating: crashed.file("app.sqlite"))
    try handle.seek(toOffset: 4_096 * 150)
    try handle.write(contentsOf: Data(repeating: 0xA5, count: 4_096 * 4))
    try handle.close()

    try expectRefusal(
      try SQLiteDatabase(path: crashed.file("app.sqlite").path, migrator: libraryMigrator()),
      leaves: crashed.url
    ) { error in
      if case .corrupt = error { true } else { false }
    }
    #expect(FileManager.default.fileExists(atPath: crashed.file("app.sqlite-journal").path))
  }

  @Test func aFileInAMissingFolderCannotBeOpened() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("no/such/folder/app.sqlite")
    #expect {
      try SQLiteDatabase(path: file.path, migrator: libraryMigrator())
    } throws: { error in
      if case .cannotOpen(path: file.path)? = error as? SQLiteDatabaseError { true } else { false }
    }
  }

  @Test func aStoredValueOfTheWrongTypeIsACorruptFileEvenWithoutTheIntegrityCheck()
    async throws
  {
    let directory = try TemporaryDirectory()
    let file = try await savedDatabase(in: directory.url)
    // The migrations' table holds a NULL identifier: what damage (or another tool) leaves.
    let queue = try DatabaseQueue(path: file.path)
    try await queue.write { db in
      try db.execute(sql: "ALTER TABLE grdb_migrations RENAME TO old_migrations")
      try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT)")
      try db.execute(sql: "INSERT INTO grdb_migrations SELECT identifier FROM old_migrations")
      try db.execute(sql: "INSERT INTO grdb_migrations VALUES (NULL)")
    }
    try queue.close()
    try expectRefusal(
      try SQLiteDatabase(path: file.path, migrator: libraryMigrator(), verifiesIntegrity: false),
      leaves: directory.url
    ) { error in
      if case .corrupt(path: file.path, _) = error { true } else { false }
    }
  }

  @Test func anOpenAfterAnotherProcessClosedTheFileTakesNoWriteLock() async throws {
    let directory = try TemporaryDirectory()
    let file = try await savedDatabase(in: directory.url)
    // Closed cleanly: no -wal file. Another connection now holds the write lock, its log empty.
    #expect(!FileManager.default.fileExists(atPath: file.path + "-wal"))
    let other = try lockHolder(file)
    try await other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
    let database = try SQLiteDatabase(
      path: file.path, migrator: libraryMigrator(), busyTimeout: .zero)
    #expect(try await database.load(tagTable).values == [Tag(id: 1, name: "home")])
    try await other.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
    try await database.persist(to: tagTable)([Tag(id: 2, name: "work")], [])
    #expect(try await database.load(tagTable).count == 2)
    try database.close()
  }

  @Test func aDiskIOErrorFromGrowingTheIndexIsADiskFull() {
    let error = SQLiteDatabaseError(
      DatabaseError(resultCode: .SQLITE_IOERR_SHMSIZE), path: "/tmp/app.sqlite")
    guard case .diskFull = error else {
      Issue.record("expected diskFull, got \(error)")
      return
    }
  }

  @Test(.enabled(if: MountedVolume.isAvailable, "needs a tmpfs mount (root on Linux)"))
  func aFullDiskAtOpenIsADiskFullAndLosesNothing() async throws {
    // NB: room to spare for the database, its -wal and -shm: only the filler makes it full.
    let volume = try MountedVolume(kilobytes: 1_024)
    let file = volume.file("app.sqlite")
    _ = try await savedDatabase(in: volume.url)
    // Fill the volume to its last byte.
    let filler = volume.file("filler")
    #expect(FileManager.default.createFile(atPath: filler.path, contents: nil))
    let handle = try FileHandle(forWritingTo: filler)
    let block = Data(repeating: 0, count: 4_096)
    while (try? handle.write(contentsOf: block)) != nil {}
    try? handle.close()

    #expect {
      try SQLiteDatabase(path: file.path, migrator: libraryMigrator())
    } throws: { error in
      if case .diskFull? = error as? SQLiteDatabaseError { true } else { false }
    }

    try FileManager.default.removeItem(at: filler)
    let database = try SQLiteDatabase(path: file.path, migrator: libraryMigrator())
    #expect(try await database.load(tagTable).values == [Tag(id: 1, name: "home")])
  }

  @Test func closeEndsTheDatabaseAndLaterUseIsATypedError() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("app.sqlite")
    let database = try SQLiteDatabase(path: file.path, migrator: libraryMigrator())
    let persistence = PersistenceMiddleware<Library>(
      database: database,
      writers: [StateWriter(keyPath: \.tags, table: tagTable, database: database)],
      clock: ManualClock())
    var library = Library()
    library.tags.upsert(Tag(id: 1, name: "home"))
    persistence.afterReduce(state: &library)
    try await persistence.shutdown()
    try database.close()
    try database.close()  // a second close does nothing

    await #expect {
      try await database.load(tagTable)
    } throws: { error in
      if case .closed(path: file.path)? = error as? SQLiteDatabaseError { true } else { false }
    }
    await #expect {
      try await database.persist(to: tagTable)([Tag(id: 2, name: "work")], [])
    } throws: { error in
      if case .closed(path: file.path)? = error as? SQLiteDatabaseError { true } else { false }
    }
    // Closed means closed: the last connection checkpointed and removed its -wal file.
    #expect(!FileManager.default.fileExists(atPath: file.path + "-wal"))
    let reopened = try SQLiteDatabase(path: file.path, migrator: libraryMigrator())
    #expect(try await reopened.load(tagTable).values == [Tag(id: 1, name: "home")])
  }
}

/// Copies of files in a directory this process cannot write: a read-only tmpfs for root, a
/// `chmod`ed directory otherwise.
private final class ReadOnlyCopy {
  private let volume: MountedVolume?
  private let directory: TemporaryDirectory?
  let url: URL

  init(of files: [URL]) throws {
    #if os(Linux)
      let isRoot = geteuid() == 0
    #else
      let isRoot = false
    #endif
    if isRoot {
      let volume = try MountedVolume(kilobytes: 1_024)
      self.volume = volume
      directory = nil
      url = volume.url
    } else {
      let directory = try TemporaryDirectory()
      self.directory = directory
      volume = nil
      url = directory.url
    }
    for file in files {
      try FileManager.default.copyItem(
        at: file, to: url.appendingPathComponent(file.lastPathComponent))
    }
    if let volume {
      try volume.remountReadOnly()
    } else {
      for file in files {
        try FileManager.default.setAttributes(
          [.posixPermissions: 0o444], ofItemAtPath: self.file(file.lastPathComponent).path)
      }
      try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: url.path)
    }
  }

  func file(_ name: String) -> URL {
    url.appendingPathComponent(name)
  }

  deinit {
    if directory != nil {
      try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
    }
  }
}
