public import GRDB
import Persistence

import struct Foundation.Data
import class Foundation.JSONDecoder

/// The migration steps of a table whose entity changed, or whose file an earlier release made.
/// Each runs in a ``SQLiteMigration``, whose transaction rolls every step back if one fails:
/// a file is migrated whole or not at all.
extension EntityTable {
  /// Converts a table made by a release before typed columns (each entity as JSON in a `data`
  /// column) to a column per property, keeping every row's id, version and order. It also
  /// adds what ``addVersions(in:)`` and ``addPositions(in:)`` add, so a file of any earlier
  /// release needs this step alone. A table that already has typed columns is left as it is.
  ///
  /// ```swift
  /// SQLiteMigration("v3-columns") { db in try notes.convertToColumns(in: db) }
  /// ```
  ///
  /// - Parameter db: The migration's database connection.
  /// - Throws: ``SQLiteDatabaseError/undecodable(table:id:underlying:)`` for a row whose JSON
  ///   is not an `Entity` (nothing is converted), or GRDB's `DatabaseError`.
  /// - Complexity: O(*n*): every row is decoded from JSON and written in columns.
  public func convertToColumns(in db: Database) throws {
    let columns = try self.columns()
    guard try db.columns(in: name).contains(where: { $0.name.lowercased() == "data" }),
      !columns.contains(where: { $0.name.lowercased() == "data" })
    else { return }
    try addVersions(in: db)
    let converted = "\(name)_converting".quotedDatabaseIdentifier
    try create(converted, in: db)
    let quoted = ["id"] + columns.map(\.name.quotedDatabaseIdentifier) + ["version", "position"]
    let insert = try db.makeStatement(
      sql: """
        INSERT INTO \(converted) (\(quoted.joined(separator: ", ")))
        VALUES (\(Array(repeating: "?", count: quoted.count).joined(separator: ", ")))
        """)
    let decoder = JSONDecoder()
    let encoder = ColumnEncoder(columns: columns.map(\.name))
    let rows = try Row.fetchCursor(
      db, sql: "SELECT id, data, version, rowid FROM \(quotedName) ORDER BY rowid")
    while let row = try rows.next() {
      let id: DatabaseValue = row[0]
      let entity: Entity
      do {
        entity = try decoder.decode(Entity.self, from: try row.decode(Data.self, atIndex: 1))
      } catch {
        throw SQLiteDatabaseError.undecodable(table: name, id: "\(id)", underlying: error)
      }
      try encoder.encode(entity)
      try insert.execute(
        arguments: StatementArguments([id] + encoder.values + [row[2], row[3]]))
    }
    try replace(with: converted, in: db)
  }

  /// Adds a column for each property the entity has and the table lacks (a property added to
  /// the entity type). An optional property, or one decoded with `decodeIfPresent` and a
  /// default, needs nothing more: old rows load with `nil` there. Any other needs its value
  /// for the rows already stored, in `defaults`.
  ///
  /// ```swift
  /// SQLiteMigration("v4-priority") { db in try cards.addColumns(in: db, defaults: ["priority": 0]) }
  /// ```
  ///
  /// - Parameters:
  ///   - db: The migration's database connection.
  ///   - defaults: Values for the stored rows, by column, as the column stores them (a date as
  ///     seconds since 2001-01-01: `date.timeIntervalSinceReferenceDate`).
  /// - Throws: ``SQLiteDatabaseError/missingColumn(table:column:declaration:)`` for a property
  ///   that is neither optional nor in `defaults`, or GRDB's `DatabaseError`.
  /// - Complexity: O(1) per optional column; O(*n*) per column given a default.
  public func addColumns(
    in db: Database, defaults: [String: any DatabaseValueConvertible] = [:]
  ) throws {
    let stored = Set(try db.columns(in: name).map { $0.name.lowercased() })
    for column in try columns() where !stored.contains(column.name.lowercased()) {
      let declaration = "\(column.name.quotedDatabaseIdentifier) \(Self.sqlType(column.kind))"
      let value = defaults[column.name]
      guard column.isOptional || value != nil else {
        throw SQLiteDatabaseError.missingColumn(
          table: name, column: column.name, declaration: declaration)
      }
      try db.execute(sql: "ALTER TABLE \(quotedName) ADD COLUMN \(declaration)")
      if let value {
        try db.execute(
          sql: "UPDATE \(quotedName) SET \(column.name.quotedDatabaseIdentifier) = ?",
          arguments: [value])
      }
    }
  }

  /// Renames a column (a property renamed, its coding key with it), keeping its values.
  ///
  /// ```swift
  /// SQLiteMigration("v5-headline") { db in try cards.renameColumn("title", to: "headline", in: db) }
  /// ```
  ///
  /// - Parameters:
  ///   - old: The column's name now.
  ///   - new: The property's new coding key.
  ///   - db: The migration's database connection.
  /// - Throws: GRDB's `DatabaseError`, for instance when no column is named `old`.
  /// - Complexity: O(1): SQLite renames a column without rewriting rows.
  public func renameColumn(_ old: String, to new: String, in db: Database) throws {
    try db.execute(
      sql: """
        ALTER TABLE \(quotedName) RENAME COLUMN \(old.quotedDatabaseIdentifier) \
        TO \(new.quotedDatabaseIdentifier)
        """)
  }

  /// Makes the table again with the columns the entity has now, keeping every row's id,
  /// version and position: a column whose property's type changed (converted by an SQL
  /// expression in `values`), a column of a property removed (dropped), or any mix. Each new
  /// column takes its expression from `values` (over the old columns), else the old column of
  /// its name, else NULL.
  ///
  /// ```swift
  /// // `estimate` was an Int, is now a String:
  /// SQLiteMigration("v6-estimate") { db in
  ///   try cards.rebuild(in: db, values: ["estimate": "CAST(estimate AS TEXT)"])
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - db: The migration's database connection.
  ///   - values: An SQL expression per column whose values change.
  /// - Throws: ``SQLiteDatabaseError/jsonTable(table:)`` for a table still in JSON (convert it
  ///   first), or GRDB's `DatabaseError` (an expression that does not compile, say).
  /// - Complexity: O(*n*): every row is copied.
  public func rebuild(in db: Database, values: [String: String] = [:]) throws {
    let stored = Set(try db.columns(in: name).map { $0.name.lowercased() })
    let columns = try self.columns()
    if stored.contains("data"), !columns.contains(where: { $0.name.lowercased() == "data" }) {
      throw SQLiteDatabaseError.jsonTable(table: name)
    }
    try addVersions(in: db)
    try addPositions(in: db)
    let rebuilt = "\(name)_rebuilding".quotedDatabaseIdentifier
    try create(rebuilt, in: db)
    let names = ["id"] + columns.map(\.name.quotedDatabaseIdentifier) + ["version", "position"]
    let sources =
      ["id"]
      + columns.map { column in
        values[column.name]
          ?? (stored.contains(column.name.lowercased())
            ? column.name.quotedDatabaseIdentifier : "NULL")
      } + ["version", "position"]
    try db.execute(
      sql: """
        INSERT INTO \(rebuilt) (\(names.joined(separator: ", ")))
        SELECT \(sources.joined(separator: ", ")) FROM \(quotedName) ORDER BY rowid
        """)
    try replace(with: rebuilt, in: db)
  }

  /// Drops the table and gives its name to `successor`.
  private func replace(with successor: String, in db: Database) throws {
    try db.execute(sql: "DROP TABLE \(quotedName)")
    try db.execute(sql: "ALTER TABLE \(successor) RENAME TO \(quotedName)")
  }
}
