import EntityTracking
public import GRDB
import GRDBSQLite
public import Persistence

import class Foundation.JSONEncoder
import class Foundation.JSONSerialization
import class Foundation.NSNull

extension EntityTable {
  /// Writes `changes` in `db`'s transaction, each row at the version the process last saw:
  /// removes the deletions, writes each entity at its position (a batch without positions puts
  /// new rows after the others and leaves the others' in place), and logs each row.
  ///
  /// A row found at another version is a conflict and a row the database refuses (or an
  /// entity that does not encode) a rejected write: both are recorded in `flush`, and the
  /// caller rolls the transaction back. Other failures (a full disk, a lock) are thrown.
  ///
  /// It runs on the database's writer queue, never on the caller's actor: encoding a large
  /// flush does not block the main actor.
  @usableFromInline
  func apply(
    _ changes: EntityChanges<Entity>, in db: Database, flush: inout SQLiteFlush,
    versions work: FlushVersions<Entity.ID>
  ) throws {
    let columns = try checkColumns(db)
    let versions = flush.book.table(name, keyedBy: Entity.ID.self)
    // NB: the deletions' ids, then the writes', in one array: their bases come at the same
    // offsets.
    var keys = changes.deletions
    keys.reserveCapacity(changes.deletions.count + changes.writes.count)
    for entity in changes.writes { keys.append(entity.id) }
    let ids = keys
    let bases = work.bases(versions, ids)
    var rows = RowWriter(
      table: self, columns: columns, db: db,
      log: try ChangeLog.statement(
        in: db, table: name, origin: flush.origin, writtenAt: flush.writtenAt))
    defer {
      let (written, dropped) = (rows.written, bases.dropped)
      flush.committed.append { work.committed(versions, written, ids, dropped) }
    }

    for offset in changes.deletions.indices {
      let id = changes.deletions[offset]
      guard bases.dropped.isEmpty || bases.dropped[id] == nil else { continue }
      try rows.delete(id, base: bases.versions[offset], flush: &flush)
    }
    guard !changes.writes.isEmpty else { return }
    let writeBase = changes.deletions.count
    let hasPositions = !changes.positions.isEmpty
    let encoder = ColumnEncoder(columns: columns.map(\.name))
    for offset in changes.writes.indices {
      let entity = changes.writes[offset]
      if !bases.dropped.isEmpty, bases.dropped[entity.id] != nil { continue }
      do {
        try encoder.encode(entity)
      } catch {
        flush.rejected.append(
          RejectedWrite(
            batch: flush.batch, table: name, id: "\(entity.id)",
            reason: .unencodable("\(error)")))
        continue
      }
      try rows.write(
        entity.id, values: encoder.values, base: bases.versions[writeBase + offset],
        position: hasPositions ? changes.positions[offset] : nil, flush: &flush)
    }
  }
}

/// Writes one table's rows of a flush with prepared statements whose values are bound in
/// place, checks each against its base version, and logs it.
///
/// NB: the values are bound in place, on statements prepared for them, rather than passed to
/// `execute(arguments:)`: building and checking a `StatementArguments` per row, then binding it
/// through GRDB's generic, nested temporary bindings, cost more than SQLite's own work.
private struct RowWriter<Entity: Codable & Identifiable & Equatable & Sendable>
where Entity.ID: DatabaseValueConvertible & Sendable {
  let table: EntityTable<Entity>
  let db: Database
  let log: Statement
  /// The number of columns a row writes besides its id and version.
  private let count: Int
  /// The rows written or deleted, at their new versions.
  private(set) var written: [VersionTable<Entity.ID>.Written] = []
  /// The statements, prepared at their first use in the batch, then reused for every row.
  private var insertAtVersion: Statement?
  /// The version of the rows this batch makes, read at the first.
  private var madeAtVersion: Int64?
  /// The position of the last row this batch added after the others, for a batch without
  /// positions: read at the first.
  private var appendedPosition: Double?
  private var deleteAtVersion: Statement?
  private var updateAtVersion: Statement?

  /// The table's quoted name, made once per batch.
  private let name: String
  /// The SQL of the statements, made once per batch: the columns an insert names (id first,
  /// version last), its placeholders, and an update's assignments of the entity's columns.
  private let insertColumns: String
  private let insertValues: String
  private let assignments: String
  private let upsertAssignments: String

  init(table: EntityTable<Entity>, columns: [EntitySchema.Property], db: Database, log: Statement) {
    self.table = table
    self.db = db
    self.log = log
    count = columns.count
    name = table.quotedName
    let quoted = columns.map(\.name.quotedDatabaseIdentifier)
    insertColumns = (["id"] + quoted + ["version", "position"]).joined(separator: ", ")
    insertValues = Array(repeating: "?", count: columns.count + 3).joined(separator: ", ")
    assignments = quoted.map { "\($0) = ?, " }.joined()
    upsertAssignments = quoted.map { "\($0) = excluded.\($0), " }.joined()
  }

  private var lastWriterWins: Bool { table.conflictPolicy == .lastWriterWins }

  // MARK: - Rows

  /// The version a row this batch makes starts at: the number the batch's first log record
  /// takes, above every version the id may have had before.
  ///
  /// NB: a row made again after a deletion must not start again at 1. A process that saw the
  /// old row at version 5 would skip the new one's versions 1 to 5 as already seen (the feed
  /// delivers a row's latest version), and a write based on the old row's version 5 would
  /// succeed on the new row's. Every version of a row has its log record, so the old row's
  /// versions never passed the log's numbering; the numbering never goes back (pruning keeps the
  /// last record); and the batch holds the write lock from this read to its commit.
  private mutating func firstVersion() throws -> Int64 {
    if let madeAtVersion { return madeAtVersion }
    let version = try ChangeLog.nextNumber(in: db)
    madeAtVersion = version
    return version
  }

  /// Deletes a row at its base version (any version under last-writer-wins).
  mutating func delete(_ id: Entity.ID, base: Int64?, flush: inout SQLiteFlush)
    throws
  {
    // NB: a copy: the statements' SQL is read while a statement slot of `self` is written.
    let quoted = name
    if lastWriterWins {
      let statement = try db.cachedStatement(
        sql: "DELETE FROM \(name) WHERE id = ? RETURNING version")
      guard let version = try Int64.fetchOne(statement, arguments: [id]) else { return }
      try logged(id, version: version + 1, deleted: true)
      return
    }
    let statement = try Statements.statement(
      &deleteAtVersion, "DELETE FROM \(quoted) WHERE id = ? AND version = ?", count: 2, in: db)
    let db = db
    let found = try run(statement, isDeletion: true, id: id, flush: &flush) { sqlite in
      try Statements.bind(id, at: 1, of: statement, sqlite, in: db)
      try Statements.check(sqlite3_bind_int64(sqlite, 2, base ?? -1), statement, in: db)
    }
    switch found {
    case .changed:
      try logged(id, version: (base ?? 0) + 1, deleted: true)
    case .unchanged:
      // NB: a row already gone is no conflict: both wanted it deleted.
      if let conflict = try conflict(id, base: base), conflict.currentVersion != nil {
        flush.conflicts.append(conflict)
      }
    case .refused: break
    }
  }

  /// The position of a row this batch adds without one: after every row, and after the
  /// rows added before it.
  private mutating func nextAppendedPosition() throws -> Double {
    let last =
      try appendedPosition
      ?? Double.fetchOne(db, sql: "SELECT max(position) FROM \(name)") ?? 0
    appendedPosition = last + 1
    return last + 1
  }

  /// Writes an entity's column values at its position (`nil`: where the row is, or after
  /// every row when new): updates its row at its base version, or inserts a row new to this
  /// process.
  mutating func write(
    _ id: Entity.ID, values: [DatabaseValue], base: Int64?, position: Double?,
    flush: inout SQLiteFlush
  ) throws {
    if lastWriterWins {
      try overwrite(id, values: values, position: position, flush: &flush)
      return
    }
    // NB: copies, captured by the bindings instead of the writer.
    let (quoted, columns, placeholders, count, db) = (name, insertColumns, insertValues, count, db)
    guard let base else {
      // New to this process: a row there already was created by another one.
      let version = try firstVersion()
      let position = try position ?? nextAppendedPosition()
      let insert = try Statements.statement(
        &insertAtVersion, "INSERT INTO \(quoted) (\(columns)) VALUES (\(placeholders))",
        count: count + 3, in: db)
      switch try run(
        insert, id: id, flush: &flush,
        bindings: { sqlite in
          try Statements.bind(id, at: 1, of: insert, sqlite, in: db)
          try Statements.bind(values, from: 2, of: insert, sqlite, in: db)
          try Statements.check(sqlite3_bind_int64(sqlite, CInt(count + 2), version), insert, in: db)
          try Statements.check(
            sqlite3_bind_double(sqlite, CInt(count + 3), position), insert, in: db)
        })
      {
      case .changed: try logged(id, version: version, deleted: false)
      case .unchanged:
        if let conflict = try conflict(id, base: nil) { flush.conflicts.append(conflict) }
      case .refused: break
      }
      return
    }
    let assignments = assignments
    // NB: a NULL position keeps the row's.
    let update = try Statements.statement(
      &updateAtVersion,
      """
      UPDATE \(quoted) SET \(assignments)version = version + 1, \
      position = coalesce(?, position) WHERE id = ? AND version = ?
      """,
      count: count + 3, in: db)
    switch try run(
      update, id: id, flush: &flush,
      bindings: { sqlite in
        try Statements.bind(values, from: 1, of: update, sqlite, in: db)
        if let position {
          try Statements.check(
            sqlite3_bind_double(sqlite, CInt(count + 1), position), update, in: db)
        }
        try Statements.bind(id, at: CInt(count + 2), of: update, sqlite, in: db)
        try Statements.check(sqlite3_bind_int64(sqlite, CInt(count + 3), base), update, in: db)
      })
    {
    case .changed: try logged(id, version: base + 1, deleted: false)
    case .unchanged:
      if let conflict = try conflict(id, base: base) { flush.conflicts.append(conflict) }
    case .refused: break
    }
  }

  /// Writes under last-writer-wins: whatever the row's version, at the version after it.
  private mutating func overwrite(
    _ id: Entity.ID, values: [DatabaseValue], position: Double?,
    flush: inout SQLiteFlush
  ) throws {
    var version: Int64 = 1
    do {
      let first = try firstVersion()
      // NB: a row new to the file takes the position given, else one after every row; a row
      // there keeps its own when none is given.
      let inserted = try position ?? nextAppendedPosition()
      let upsert = try db.cachedStatement(
        sql: """
          INSERT INTO \(name) (\(insertColumns)) VALUES (\(insertValues))
          ON CONFLICT(id) DO UPDATE SET \(upsertAssignments)version = version + 1,
            position = coalesce(?, position)
          RETURNING version
          """)
      version =
        try Int64.fetchOne(
          upsert,
          arguments: StatementArguments(
            [id.databaseValue] + values + [
              first.databaseValue, inserted.databaseValue, position.databaseValue,
            ]))
        ?? first
    } catch let error as DatabaseError where Self.isRefusal(error) {
      flush.rejected.append(refusal(error, id: id, isDeletion: false, batch: flush.batch))
      return
    }
    try logged(id, version: version, deleted: false)
  }

  /// The row of `id` now, as a conflict with `base`; `nil` when the row is gone and the write
  /// did not expect it (an update of a row deleted meanwhile is a conflict, with no version).
  private func conflict(_ id: Entity.ID, base: Int64?) throws -> PersistenceConflict? {
    let statement = try db.cachedStatement(sql: "SELECT * FROM \(name) WHERE id = ?")
    let row = try Row.fetchOne(statement, arguments: [id])
    let current = try row?.decode(Int64?.self, forColumn: "version")
    // NB: the row as JSON, the form a conflict carries on either backend. A row that does not
    // decode as the entity carries its columns as they are: resolving for it (`keepTheirs`)
    // then fails with `.undecodable`, where no JSON at all would read as a deleted row.
    let json = try row.map { row in
      do {
        return String(decoding: try JSONEncoder().encode(try table.decode(row)), as: UTF8.self)
      } catch {
        return try Self.columnsJSON(of: row)
      }
    }
    guard current != nil || base != nil else { return nil }
    return PersistenceConflict(
      table: table.name, id: "\(id)", expectedVersion: base, currentVersion: current,
      currentJSON: json)
  }

  /// A row's columns as a JSON object, each value as JSON holds it (a blob in base64).
  private static func columnsJSON(of row: Row) throws -> String {
    var object: [String: Any] = [:]
    for (column, value) in row {
      switch value.storage {
      case .null: object[column] = NSNull()
      case .int64(let number): object[column] = number
      case .double(let number): object[column] = number.isFinite ? number : "\(number)" as Any
      case .string(let text): object[column] = text
      case .blob(let data): object[column] = data.base64EncodedString()
      }
    }
    return String(
      decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
      as: UTF8.self)
  }

  // MARK: - Statements

  enum Outcome {
    /// The statement changed one row.
    case changed
    /// It matched no row (a row at another version), or found the primary key taken.
    case unchanged
    /// The database refused the row for good: recorded in the flush.
    case refused
  }

  /// Runs `statement` after `bindings`, and says whether it changed a row; a refusal of the
  /// row is recorded in `flush`, any other failure thrown.
  private func run(
    _ statement: Statement, isDeletion: Bool = false, id: Entity.ID, flush: inout SQLiteFlush,
    bindings: (SQLiteStatement) throws -> Void
  ) throws -> Outcome {
    let sqlite = statement.sqliteStatement
    // NB: binding needs a statement reset since its last step. What `sqlite3_reset` returns
    // is the error of that last step, already thrown by the `execute()` that ran it.
    _ = sqlite3_reset(sqlite)
    try bindings(sqlite)
    defer { _ = sqlite3_clear_bindings(sqlite) }
    do {
      try statement.execute()
    } catch let error as DatabaseError
      where error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY
    {
      return .unchanged
    } catch let error as DatabaseError where Self.isRefusal(error) {
      flush.rejected.append(refusal(error, id: id, isDeletion: isDeletion, batch: flush.batch))
      return .refused
    }
    return db.changesCount > 0 ? .changed : .unchanged
  }

  /// Whether SQLite refused a row for good: retrying the same row cannot succeed.
  private static func isRefusal(_ error: DatabaseError) -> Bool {
    switch error.resultCode {
    case .SQLITE_CONSTRAINT, .SQLITE_TOOBIG, .SQLITE_MISMATCH: true
    default: false
    }
  }

  private func refusal(_ error: DatabaseError, id: Entity.ID, isDeletion: Bool, batch: Int)
    -> RejectedWrite
  {
    RejectedWrite(
      batch: batch, table: table.name, id: "\(id)", isDeletion: isDeletion,
      reason: .refused(
        code: "\(error.extendedResultCode)", message: error.message ?? "\(error.resultCode)"))
  }

  /// Logs a row written or deleted, and records it for the process's versions.
  private mutating func logged(_ id: Entity.ID, version: Int64, deleted: Bool) throws {
    let sqlite = log.sqliteStatement
    _ = sqlite3_reset(sqlite)
    try Statements.bind(id, at: 4, of: log, sqlite, in: db)
    try Statements.check(sqlite3_bind_int64(sqlite, 5, version), log, in: db)
    try Statements.check(sqlite3_bind_int(sqlite, 6, deleted ? 1 : 0), log, in: db)
    try log.execute()
    written.append(.init(key: id, version: version, isDeletion: deleted))
  }
}

/// Prepares a flush's statements once, binds each row's values in place, and throws what
/// SQLite says when it cannot.
///
/// NB: not members of the generic `RowWriter`: a closure that bound through them captured the
/// writer, which was copied through its value witnesses four times a row, and each call looked
/// the writer's metadata up (about 1,900 instructions a row, in the flush's unspecialized code).
private enum Statements {
  /// The statement in `slot`, prepared by `prepare(_:count:in:)` at its first use.
  static func statement(
    _ slot: inout Statement?, _ sql: @autoclosure () -> String, count: Int, in db: Database
  ) throws -> Statement {
    if let statement = slot { return statement }
    let statement = try prepare(sql(), count: count, in: db)
    slot = statement
    return statement
  }

  /// The cached statement for `sql`, which takes `count` values, with its arguments checked
  /// and marked bound: `RowWriter.run` then binds each row's values in place and runs it
  /// without arguments, which keeps them.
  static func prepare(_ sql: String, count: Int, in db: Database) throws -> Statement {
    let statement = try db.cachedStatement(sql: sql)
    try statement.setArguments(
      StatementArguments(Array(repeating: DatabaseValue.null, count: count)))
    return statement
  }

  static func bind<ID: DatabaseValueConvertible>(
    _ id: ID, at index: CInt, of statement: Statement, _ sqlite: SQLiteStatement, in db: Database
  ) throws {
    try check(id.bind(to: sqlite, at: index), statement, in: db)
  }

  /// Binds `values` to the parameters from `first` on.
  static func bind(
    _ values: [DatabaseValue], from first: CInt, of statement: Statement,
    _ sqlite: SQLiteStatement, in db: Database
  ) throws {
    for index in values.indices {
      try check(values[index].bind(to: sqlite, at: first + CInt(index)), statement, in: db)
    }
  }

  /// Throws the error of a failed `sqlite3_bind_*` call.
  static func check(_ code: CInt, _ statement: Statement, in db: Database) throws {
    guard code != SQLITE_OK else { return }
    throw DatabaseError(
      resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: statement.sql)
  }
}
