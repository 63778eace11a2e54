import EntityTracking
import GRDB
import PersistenceSQLite

struct Tag: Codable, Identifiable, Equatable, Sendable {
  let id: Int
  var name: String
}

struct Note: Codable, Identifiable, Equatable, Sendable {
  let id: String
  var title: String
  /// A non-finite score does not encode (SQLite has no NaN): the way to make one writer's batch
  /// fail.
  var score: Double = 0
}

struct Library {
  var tags = EntityStore<Tag>()
  var notes = EntityStore<Note>()
}

let tagTable = EntityTable<Tag>("tags")
let noteTable = EntityTable<Note>("notes")

func libraryMigrator(through version: Int = 1) -> DatabaseMigrator {
  var migrator = DatabaseMigrator()
  migrator.registerMigration("v1") { db in
    try tagTable.create(in: db)
    try noteTable.create(in: db)
  }
  if version >= 2 {
    migrator.registerMigration("v2 archive") { db in
      try db.execute(sql: "CREATE TABLE archive (id INTEGER PRIMARY KEY, note TEXT)")
    }
  }
  return migrator
}

func count(_ table: String, in database: SQLiteDatabase) throws -> Int {
  try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0 }
}
