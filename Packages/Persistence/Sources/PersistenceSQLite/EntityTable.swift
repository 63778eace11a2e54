import EntityTracking
public import GRDB

import struct Foundation.Data
import class Foundation.JSONDecoder

/// A table holding one `Codable` entity type, one row per entity: the id as primary key and the
/// entity as JSON. An app persists an `EntityStore` through it without writing SQL.
///
/// ```swift
/// let notes = EntityTable<Note>("notes")
/// var migrator = DatabaseMigrator()
/// migrator.registerMigration("v1") { db in try notes.create(in: db) }
/// ```
///
/// Rows keep the order their ids were first written, and ``SQLiteDatabase/load(_:)`` returns
/// them in that order. A store reordered later (`sort(by:)`) is loaded in first-written order:
/// sort it again after loading.
public struct EntityTable<Entity: Codable & Identifiable & Equatable & Sendable>: Sendable
where Entity.ID: DatabaseValueConvertible & Sendable {
  /// The table's name.
  public let name: String

  /// Names the table for `Entity`.
  ///
  /// - Parameter name: The SQL table's name; it is quoted, so any name works.
  public init(_ name: String) {
    self.name = name
  }

  /// Creates the table. Call it from a migration.
  ///
  /// - Parameter db: The migration's database connection.
  /// - Throws: GRDB's `DatabaseError`, for instance when the table already exists.
  public func create(in db: Database) throws {
    // NB: `id` has no declared type, so it is not an alias of the rowid: the rowid then keeps
    // first-insertion order, which an upsert preserves and `load` reads back.
    try db.execute(sql: "CREATE TABLE \(quotedName) (id NOT NULL PRIMARY KEY, data BLOB NOT NULL)")
  }

  var quotedName: String { name.quotedDatabaseIdentifier }

  /// Writes `writes` (insert or replace by id) and removes `deletions`, in `db`'s transaction.
  ///
  /// It runs on the database's writer queue, never on the caller's actor: encoding a large
  /// flush does not block the main actor.
  func apply(writes: [Entity], deletions: [Entity.ID], in db: Database) throws {
    if !deletions.isEmpty {
      let delete = try db.cachedStatement(sql: "DELETE FROM \(quotedName) WHERE id = ?")
      for id in deletions {
        try delete.execute(arguments: [id])
      }
    }
    guard !writes.isEmpty else { return }
    let upsert = try db.cachedStatement(
      sql: """
        INSERT INTO \(quotedName) (id, data) VALUES (?, ?)
        ON CONFLICT(id) DO UPDATE SET data = excluded.data
        """)
    let encoder = EntityJSONEncoder()
    for entity in writes {
      let data: Data
      do {
        data = try encoder.encode(entity)
      } catch {
        throw SQLiteDatabaseError.unencodable(table: name, id: "\(entity.id)", underlying: error)
      }
      // NB: arguments passed to `execute` are bound without copying the blob.
      try upsert.execute(arguments: [entity.id, data])
    }
  }

  /// Reads every row, in first-written order, into a store that records no changes.
  func load(from db: Database) throws -> EntityStore<Entity> {
    let decoder = JSONDecoder()
    var entities: [Entity] = []
    entities.reserveCapacity(try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quotedName)") ?? 0)
    let rows = try Row.fetchCursor(db, sql: "SELECT id, data FROM \(quotedName) ORDER BY rowid")
    while let row = try rows.next() {
      let data: Data = row[1]
      do {
        entities.append(try decoder.decode(Entity.self, from: data))
      } catch {
        throw SQLiteDatabaseError.undecodable(
          table: name, id: "\(row[0] as DatabaseValue)", underlying: error)
      }
    }
    return EntityStore(entities)
  }
}
