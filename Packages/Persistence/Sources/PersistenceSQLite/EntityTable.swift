import EntityTracking
public import GRDB
import Persistence

import struct Foundation.Data
import class Foundation.JSONDecoder

/// A table holding one `Codable` entity type, one row per entity: the id as primary key and the
/// entity as JSON. An app persists an `EntityStore` through it without writing SQL.
///
/// ```swift
/// let notes = EntityTable<Note>("notes")
/// let migrations = [SQLiteMigration("v1") { db in try notes.create(in: db) }]
/// ```
///
/// Rows keep the order of the store: ``SQLiteDatabase/load(_:)`` returns a store equal to the
/// one saved through `StateWriter(keyPath:table:database:)`. The order a
/// store gets from inserting (at the end), changing in place, deleting, and inserting again
/// after a deletion (at the end: in memory and in the table alike) is stored. `sort(by:)` and
/// `restore(from:)` reorder entities without moving them to the end: the table does not follow
/// those moves (the entities are all there, the order differs), so sort again after loading.
/// A writer made from ``SQLiteDatabase/persist(to:)`` alone keeps rows in first-written order.
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

  /// Writes `changes` in `db`'s transaction: removes the deletions, replaces the writes in
  /// place (a new id goes last), then moves the entities placed last after every other row,
  /// in their order.
  ///
  /// It runs on the database's writer queue, never on the caller's actor: encoding a large
  /// flush does not block the main actor.
  func apply(_ changes: EntityChanges<Entity>, in db: Database) throws {
    if !changes.deletions.isEmpty || !changes.placedLast.isEmpty {
      let delete = try db.cachedStatement(sql: "DELETE FROM \(quotedName) WHERE id = ?")
      for id in changes.deletions {
        try delete.execute(arguments: [id])
      }
      // NB: the rowid orders the rows, and a row inserted again takes the largest one.
      for id in changes.placedLast {
        try delete.execute(arguments: [id])
      }
    }
    guard !changes.writes.isEmpty else { return }
    let upsert = try db.cachedStatement(
      sql: """
        INSERT INTO \(quotedName) (id, data) VALUES (?, ?)
        ON CONFLICT(id) DO UPDATE SET data = excluded.data
        """)
    let encoder = EntityJSONEncoder()
    func write(_ entity: Entity) throws {
      let data: Data
      do {
        data = try encoder.encode(entity)
      } catch {
        throw SQLiteDatabaseError.unencodable(table: name, id: "\(entity.id)", underlying: error)
      }
      // NB: arguments passed to `execute` are bound without copying the blob.
      try upsert.execute(arguments: [entity.id, data])
    }
    guard !changes.placedLast.isEmpty else {
      for entity in changes.writes { try write(entity) }
      return
    }
    let placedLast = Set(changes.placedLast)
    var last: [Entity.ID: Entity] = [:]
    last.reserveCapacity(placedLast.count)
    for entity in changes.writes {
      if placedLast.contains(entity.id) {
        last[entity.id] = entity
      } else {
        try write(entity)
      }
    }
    for id in changes.placedLast {
      if let entity = last[id] { try write(entity) }
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
