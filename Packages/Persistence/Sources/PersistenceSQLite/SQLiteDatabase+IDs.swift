import GRDB

extension SQLiteDatabase {
  /// A new integer id for an entity of `table`, which no other process on the file is handed:
  /// the file keeps, per table, the last id it handed out, and each call takes the next one in
  /// a write transaction of its own. Never an id a row already has, whoever wrote it.
  ///
  /// Give new entities ids from here rather than from the state (`max(id) + 1` in two processes
  /// gives both the same id, and one's entity would meet the other's as a conflict):
  ///
  /// ```swift
  /// let id = try await database.newID(for: notes)
  /// store.dispatch(.add(Note(id: Int(id), title: title)))
  /// ```
  ///
  /// - Parameter table: The table the entity goes to (its ids are integers).
  /// - Returns: The id.
  /// - Throws: ``SQLiteDatabaseError/closed(path:)`` after ``close()``, or the database's
  ///   failure (``SQLiteDatabaseError/busy(path:)`` when another process holds the write lock
  ///   longer than the busy timeout).
  /// - Complexity: O(log *n*): one write transaction, which reads the table's largest id.
  public func newID<Entity>(for table: EntityTable<Entity>) async throws(SQLiteDatabaseError)
    -> Int64
  {
    try await newIDs(for: table, count: 1).lowerBound
  }

  /// `count` new integer ids for entities of `table`, as ``newID(for:)`` hands out one.
  ///
  /// - Parameters:
  ///   - table: The table the entities go to (its ids are integers).
  ///   - count: How many ids; at least 1.
  /// - Returns: The ids, consecutive.
  /// - Throws: As ``newID(for:)``.
  public func newIDs<Entity>(
    for table: EntityTable<Entity>, count: Int
  ) async throws(SQLiteDatabaseError) -> ClosedRange<Int64> {
    guard !hasClosed else { throw .closed(path: path) }
    let count = Int64(max(count, 1))
    do {
      let last = try await writer.write { db in
        try db.execute(
          sql: """
            CREATE TABLE IF NOT EXISTS reduxkit_ids (
              table_name TEXT PRIMARY KEY, last INTEGER NOT NULL)
            """)
        // NB: never below the largest integer id stored, whoever stored it (rows written
        // before the table had a counter, or by another tool). Every number sorts before every
        // text, so `id < ''` keeps the numbers, and the primary key's index finds their largest
        // without a scan.
        let largest =
          "coalesce((SELECT CAST(max(id) AS INTEGER) FROM \(table.quotedName) WHERE id < ''), 0)"
        return try Int64.fetchOne(
          db,
          sql: """
            INSERT INTO reduxkit_ids (table_name, last) VALUES (?, \(largest) + ?)
            ON CONFLICT(table_name) DO UPDATE SET last = max(last, \(largest)) + ?
            RETURNING last
            """, arguments: [table.name, count, count]) ?? count
      }
      return (last - count + 1)...last
    } catch {
      throw SQLiteDatabaseError(error, path: path)
    }
  }
}
