import EntityTracking
public import GRDB
import GRDBSQLite
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
/// after a deletion (at the end: in memory and in the table alike) is stored, and so is the order
/// `restore(from:)` gives (it records each entity it moves as deleted and inserted again).
/// `sort(by:)` reorders entities without moving them to the end: the table does not follow that
/// (the entities are all there, the order differs), so sort again after loading.
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
  /// place (a new id goes last), then stores the entities placed last after every other row,
  /// in their order.
  ///
  /// It runs on the database's writer queue, never on the caller's actor: encoding a large
  /// flush does not block the main actor.
  func apply(_ changes: EntityChanges<Entity>, in db: Database) throws {
    if !changes.deletions.isEmpty {
      let delete = try db.cachedStatement(sql: "DELETE FROM \(quotedName) WHERE id = ?")
      for id in changes.deletions {
        try delete.execute(arguments: StatementArguments(CollectionOfOne(id.databaseValue)))
      }
    }
    guard !changes.writes.isEmpty else { return }
    let encoder = EntityJSONEncoder()
    func write(_ entity: Entity, with statement: Statement) throws {
      let fallback: Data?
      do {
        fallback = try encoder.encodeInPlace(entity)
      } catch {
        throw SQLiteDatabaseError.unencodable(table: name, id: "\(entity.id)", underlying: error)
      }
      if let fallback {
        try fallback.withUnsafeBytes { try execute(statement, id: entity.id, data: $0, in: db) }
      } else {
        try encoder.withBytes { try execute(statement, id: entity.id, data: $0, in: db) }
      }
    }
    let placedLast = placedLastOffsets(of: changes)
    if placedLast.count < changes.writes.count {
      let upsert = try prepare(
        """
        INSERT INTO \(quotedName) (id, data) VALUES (?, ?)
        ON CONFLICT(id) DO UPDATE SET data = excluded.data
        """, in: db)
      if placedLast.isEmpty {
        for entity in changes.writes { try write(entity, with: upsert) }
      } else {
        var isPlacedLast = [Bool](repeating: false, count: changes.writes.count)
        for offset in placedLast { isPlacedLast[offset] = true }
        for (offset, entity) in changes.writes.enumerated() where !isPlacedLast[offset] {
          try write(entity, with: upsert)
        }
      }
    }
    guard !placedLast.isEmpty else { return }
    // NB: REPLACE deletes the row of an id already stored and inserts a new one, which takes a
    // rowid larger than every other: the rowid orders the rows, so the entity goes last. A new
    // id is a plain insert, with no DELETE to run.
    let replace = try prepare(
      "INSERT OR REPLACE INTO \(quotedName) (id, data) VALUES (?, ?)", in: db)
    for offset in placedLast { try write(changes.writes[offset], with: replace) }
  }

  /// Runs `statement`, an insert of `(id, data)` prepared by ``prepare(_:in:)``, for one row.
  ///
  /// NB: the two values are bound in place, on the statement prepared for them, rather than
  /// passed to `execute(arguments:)`: building and checking a `StatementArguments` per row,
  /// then binding it through GRDB's generic, nested temporary bindings, cost more than
  /// SQLite's own work. The blob is bound without a copy (`SQLITE_STATIC`) for the duration of
  /// the step only, then unbound.
  private func execute(
    _ statement: Statement, id: Entity.ID, data: UnsafeRawBufferPointer, in db: Database
  ) throws {
    let sqlite = statement.sqliteStatement
    // NB: binding needs a statement reset since its last step. What `sqlite3_reset` returns
    // is the error of that last step, already thrown by the `execute()` that ran it.
    _ = sqlite3_reset(sqlite)
    try check(id.bind(to: sqlite, at: 1), statement, in: db)
    try check(
      sqlite3_bind_blob(sqlite, 2, data.baseAddress, CInt(data.count), nil), statement, in: db)
    defer { _ = sqlite3_bind_null(sqlite, 2) }
    try statement.execute()
  }

  /// Throws the error of a failed `sqlite3_bind_*` call.
  private func check(_ code: CInt, _ statement: Statement, in db: Database) throws {
    guard code != SQLITE_OK else { return }
    throw DatabaseError(
      resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: statement.sql)
  }

  /// The cached statement for `sql`, which takes `(id, data)`, with its arguments checked and
  /// marked bound: ``execute(_:id:data:in:)`` then binds each row's values in place and runs
  /// it without arguments, which keeps them.
  private func prepare(_ sql: String, in db: Database) throws -> Statement {
    let statement = try db.cachedStatement(sql: sql)
    try statement.setArguments([DatabaseValue.null, DatabaseValue.null])
    return statement
  }

  /// The offsets in `changes.writes` of the ids placed last, in their order: given by a
  /// writer's batch, or found by hashing for a batch made by hand.
  private func placedLastOffsets(of changes: EntityChanges<Entity>) -> [Int] {
    if let offsets = changes.placedLastOffsets { return offsets }
    guard !changes.placedLast.isEmpty else { return [] }
    var offsets: [Entity.ID: Int] = [:]
    offsets.reserveCapacity(changes.writes.count)
    for (offset, entity) in changes.writes.enumerated() { offsets[entity.id] = offset }
    return changes.placedLast.compactMap { offsets[$0] }
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
