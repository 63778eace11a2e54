import EntityTracking
import Foundation
import GRDB
import Persistence
import PersistenceSQLite
import ReduxCoreTesting
import Testing

/// Save, restart, load: the store loaded is equal to the store saved, order included.
@MainActor
@Suite struct EntityTableOrderTests {
  private func middleware(_ database: SQLiteDatabase) -> PersistenceMiddleware<Library> {
    PersistenceMiddleware(
      database: database,
      writers: [
        StateWriter(keyPath: \.tags, table: tagTable, database: database),
        StateWriter(keyPath: \.notes, table: noteTable, database: database),
      ], clock: ManualClock())
  }

  /// Saves `library` in a file, after `change`, then reopens the file and loads it.
  private func saveChangeAndReload(
    _ library: Library, change: (inout Library, PersistenceMiddleware<Library>) async throws -> Void
  ) async throws -> (saved: Library, loaded: Library) {
    let directory = try TemporaryDirectory()
    let path = directory.file("app.sqlite").path
    var library = library
    do {
      let database = try SQLiteDatabase(path: path, migrator: libraryMigrator())
      let persistence = middleware(database)
      persistence.afterReduce(state: &library)
      try await persistence.flush()
      try await change(&library, persistence)
      persistence.afterReduce(state: &library)
      try await persistence.shutdown()
      try database.close()
    }
    let database = try SQLiteDatabase(path: path, migrator: libraryMigrator())
    var loaded = Library()
    loaded.tags = try await database.load(tagTable)
    loaded.notes = try await database.load(noteTable)
    return (library, loaded)
  }

  private var abc: Library {
    var library = Library()
    for (id, name) in [(1, "a"), (2, "b"), (3, "c")] {
      library.tags.upsert(Tag(id: id, name: name))
    }
    return library
  }

  @Test func aDeletionAndReinsertionInOneReduceLoadsLastAsInMemory() async throws {
    let (saved, loaded) = try await saveChangeAndReload(abc) { library, _ in
      library.tags.remove(1)
      library.tags.upsert(Tag(id: 1, name: "a again"))
    }
    #expect(saved.tags.ids == [2, 3, 1])
    #expect(loaded.tags == saved.tags)
  }

  @Test func aDeletionAndReinsertionInTwoDrainsLoadsLastAsInMemory() async throws {
    let (saved, loaded) = try await saveChangeAndReload(abc) { library, persistence in
      library.tags.remove(1)
      persistence.afterReduce(state: &library)
      library.tags.upsert(Tag(id: 1, name: "a again"))
      persistence.afterReduce(state: &library)
      library.tags.modify(2) { $0.name = "b, edited in place" }
      library.tags.upsert(Tag(id: 4, name: "d"))
    }
    #expect(saved.tags.ids == [2, 3, 1, 4])
    #expect(loaded.tags == saved.tags)
  }

  @Test func aReinsertionWhoseFlushFailedKeepsItsPlaceWhenRetried() async throws {
    let (saved, loaded) = try await saveChangeAndReload(abc) { library, persistence in
      library.tags.remove(1)
      library.tags.upsert(Tag(id: 1, name: "a again"))
      library.notes.upsert(Note(id: "n", title: "breaks the flush", score: .nan))
      persistence.afterReduce(state: &library)
      await #expect(throws: PersistenceMiddlewareError.self) { try await persistence.flush() }
      library.tags.remove(2)
      library.tags.upsert(Tag(id: 2, name: "b again"))
      library.notes.modify("n") { $0.score = 1 }
    }
    #expect(saved.tags.ids == [3, 1, 2])
    #expect(loaded.tags == saved.tags)
    #expect(loaded.notes == saved.notes)
  }

  /// Random inserts, in-place changes, deletions and re-insertions, drained and flushed at
  /// random, some flushes failing: after every flush, the table loads as the store stands.
  @Test(arguments: 1...12)
  func randomChangesLoadAsTheStoreStandsAfterEveryFlush(seed: UInt64) async throws {
    let database = try SQLiteDatabase.inMemory(migrator: libraryMigrator())
    let persistence = middleware(database)
    var random = SeededRandom(seed: seed)
    var library = Library()
    var removed: [Int] = []
    var nextID = 1
    var flushes = 0
    for step in 0..<300 {
      switch random.next(below: 10) {
      case 0, 1, 2:
        library.tags.upsert(Tag(id: nextID, name: "t\(nextID)"))
        nextID += 1
      case 3, 4:
        if let id = library.tags.ids.randomElement(using: &random) {
          library.tags.modify(id) { $0.name += "'" }
        }
      case 5, 6:
        if let id = library.tags.ids.randomElement(using: &random) {
          library.tags.remove(id)
          removed.append(id)
        }
      case 7:
        if let index = removed.indices.randomElement(using: &random) {
          let id = removed.remove(at: index)
          library.tags.upsert(Tag(id: id, name: "t\(id) again at \(step)"))
        }
      case 8:
        persistence.afterReduce(state: &library)
      default:
        let fails = random.next(below: 4) == 0
        library.notes.upsert(Note(id: "switch", title: "\(step)", score: fails ? .nan : 0))
        persistence.afterReduce(state: &library)
        do {
          try await persistence.flush()
        } catch {
          try #require(fails, "seed \(seed), step \(step): \(error)")
          continue
        }
        flushes += 1
        let loaded = try await database.load(tagTable)
        try #require(loaded == library.tags, "seed \(seed), step \(step)")
      }
    }
    library.notes.modify("switch") { $0.score = 0 }
    persistence.afterReduce(state: &library)
    try await persistence.shutdown()
    #expect(try await database.load(tagTable) == library.tags)
    #expect(flushes > 5)
  }
}
