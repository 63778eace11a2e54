import EntityTracking
import Foundation
import Persistence
import PersistenceSQLite
import ReduxCoreTesting
import Testing

// NB: no `import GRDB` in this file: it compiles only while the README's snippet does.

/// The schema as a list of `SQLiteMigration`s: the README's way, with no GRDB import.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct MigrationListTests {
  static let migrations = [
    SQLiteMigration("v1") { db in
      try tagTable.create(in: db)
      try noteTable.create(in: db)
    }
  ]

  @Test func theReadmeSnippetSavesAndLoadsBackWithoutImportingGRDB() async throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("notes.sqlite").path
    let database = try SQLiteDatabase(path: path, migrations: Self.migrations)
    var state = Library()
    let persistence = PersistenceMiddleware<Library>(
      database: database,
      writers: [
        StateWriter(keyPath: \.tags, table: tagTable, database: database),
        StateWriter(keyPath: \.notes, table: noteTable, database: database),
      ], clock: ManualClock())
    state.notes.upsert(Note(id: "a", title: "First"))
    state.tags.upsert(Tag(id: 1, name: "home"))
    persistence.afterReduce(state: &state)
    try await persistence.flush()
    try await persistence.shutdown()
    try database.close()

    let reopened = try SQLiteDatabase(path: path, migrations: Self.migrations)
    #expect(try await reopened.load(noteTable) == state.notes)
    #expect(try await reopened.load(tagTable) == state.tags)
    try reopened.close()
  }

  @Test func twoStepsWithOneIdentifierAreATypedErrorNotATrap() throws {
    let twice = Self.migrations + [SQLiteMigration("v1") { _ in }]
    #expect {
      _ = try SQLiteDatabase.inMemory(migrations: twice)
    } throws: { error in
      guard case .duplicateMigration("v1") = error as? SQLiteDatabaseError else { return false }
      return true
    }
    let directory = try TemporaryDirectory()
    let path = directory.file("never.sqlite").path
    #expect(throws: SQLiteDatabaseError.self) {
      try SQLiteDatabase(path: path, migrations: twice)
    }
    #expect(!FileManager.default.fileExists(atPath: path))  // refused before anything opened
  }
}
