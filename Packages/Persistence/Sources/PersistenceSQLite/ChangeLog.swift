package import GRDB

/// The change log of a SQLite file: one row per entity row a flush wrote or deleted, in commit
/// order, which the other processes on the file read (``SQLiteChangeFeed``).
///
/// NB: SQLite commits one write transaction at a time, holding the write lock from its first
/// write to its commit, so sequence numbers taken inside a transaction become visible in their
/// order: a reader "after number N" never skips a commit (unlike PostgreSQL, whose sequences
/// are taken in insertion order and become visible in commit order). Pruning keeps the last
/// row, so the numbers never restart and stay contiguous: a reader whose next number is gone
/// knows it lost its place.
///
/// A reader that must see every record, however late (a sync's outbox: the local changes not
/// sent yet), pins its place in ``pins``: pruning keeps every record after the lowest pin.
package enum ChangeLog {
  package static let table = "reduxkit_change_log"
  /// Each pinning reader's place: the last record it has read.
  package static let pins = "reduxkit_change_log_pins"

  /// Creates the pins' table, if none was created before. Run from a migration.
  package static func createPins(in db: Database) throws {
    try db.execute(
      sql: "CREATE TABLE IF NOT EXISTS \(pins) (reader TEXT PRIMARY KEY, seq INTEGER NOT NULL)")
  }

  /// Creates the log, if no table created it before. Run from a migration.
  package static func create(in db: Database) throws {
    try db.execute(
      sql: """
        CREATE TABLE IF NOT EXISTS \(table) (
          seq INTEGER PRIMARY KEY,
          table_name TEXT NOT NULL,
          entity_id NOT NULL,
          version INTEGER NOT NULL,
          deleted INTEGER NOT NULL,
          placed_last INTEGER NOT NULL, -- 0: order is the tables' positions now
          origin TEXT NOT NULL,
          written_at REAL NOT NULL)
        """)
  }

  /// The statement that logs `rows` rows, its table, origin and time bound (parameters 1 to
  /// 3): each row's id, version and whether it was deleted are parameters 4, 5 and 6 of the
  /// first row, 7, 8 and 9 of the second, and so on.
  static func statement(
    rows: Int, in db: Database, table name: String, origin: String, writtenAt: Double
  ) throws -> Statement {
    let values = (0..<rows).map { row in
      let first = 4 + 3 * row
      return "(?1, ?2, ?3, ?\(first), ?\(first + 1), ?\(first + 2), 0)"
    }
    let statement = try db.cachedStatement(
      sql: """
        INSERT INTO \(table)
          (table_name, origin, written_at, entity_id, version, deleted, placed_last)
        VALUES \(values.joined(separator: ", "))
        """)
    try statement.setArguments(
      StatementArguments(
        [name.databaseValue, origin.databaseValue, writtenAt.databaseValue]
          + Array(repeating: DatabaseValue.null, count: 3 * rows)))
    return statement
  }

  /// Deletes the rows written before `cutoff`, but the last one (the numbering goes on from it)
  /// and those after a reader's pin.
  ///
  /// - Complexity: O(*n*), the rows of the log.
  static func prune(in db: Database, before cutoff: Double) throws {
    let pinned =
      try db.tableExists(pins) ? "AND seq <= coalesce((SELECT min(seq) FROM \(pins)), seq)" : ""
    try db.execute(
      sql: """
        DELETE FROM \(table) WHERE written_at < ? AND seq < (SELECT max(seq) FROM \(table))
          \(pinned)
        """, arguments: [cutoff])
  }

  /// The number the next record will take.
  static func nextNumber(in db: Database) throws -> Int64 {
    try Int64.fetchOne(db, sql: "SELECT coalesce(max(seq), 0) + 1 FROM \(table)") ?? 1
  }

  /// The lowest and highest numbers in the log; `nil` when it is empty.
  static func bounds(in db: Database) throws -> (first: Int64, last: Int64)? {
    guard let row = try Row.fetchOne(db, sql: "SELECT min(seq), max(seq) FROM \(table)"),
      let first = try row.decode(Int64?.self, atIndex: 0),
      let last = try row.decode(Int64?.self, atIndex: 1)
    else { return nil }
    return (first, last)
  }

  /// Whether the file has a change log (a table made by this release, or migrated to it).
  static func exists(in db: Database) throws -> Bool {
    try db.tableExists(table)
  }
}
