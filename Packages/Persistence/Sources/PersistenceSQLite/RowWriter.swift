import GRDB
import GRDBSQLite
import Persistence

import class Foundation.JSONEncoder
import class Foundation.JSONSerialization
import class Foundation.NSNull

/// Writes one table's rows of a flush with prepared statements whose values are bound in
/// place, checks each against its base version, and logs it.
///
/// Rows new to this process wait, and are inserted many to a statement; the log records of a
/// table's rows are written together at its end. A statement's own work in SQLite (starting
/// it, ending it, GRDB's bookkeeping around it) cost as much as a row's insertion: one
/// statement per row and one per log record were half a flush.
///
/// NB: the values are bound in place, on statements prepared for them, rather than passed to
/// `execute(arguments:)`: building and checking a `StatementArguments` per row, then binding it
/// through GRDB's generic, nested temporary bindings, cost more than SQLite's own work.
///
/// It knows rows by their offset in the batch's ids (deletions first), and nothing of the
/// entity: its work on each row is compiled once, for every entity, with no generic type to
/// look up (each lookup cost hundreds of instructions, a tenth of a row's flush).
struct RowWriter {
  let db: Database
  /// The table's name, as a conflict or a refused write names it.
  private let table: String
  private let lastWriterWins: Bool
  /// The batch's ids, by offset: the deletions', then the writes'.
  private let keys: [DatabaseValue]
  /// The id at an offset, as a conflict or a refused write names it.
  private let describe: (Int) -> String
  /// A row of the table as a conflict carries it: the entity as JSON.
  private let rowJSON: (Row) throws -> String
  /// The flush's process name and time, which its log records carry.
  private let origin: String
  private let writtenAt: Double
  /// The number of columns a row writes besides its id and version.
  private let count: Int
  /// The rows written or deleted, at their new versions, in the order of their statements.
  private(set) var written: [WrittenRow] = []
  /// How many of ``written`` are in the change log: ``finish(flush:)`` logs the others.
  private var logged = 0
  /// The rows new to this process not inserted yet, in order: inserted when ``most`` wait,
  /// and before any other statement runs, so that statements run in the order of the rows.
  private var waiting = WaitingRows()
  /// The most rows one statement inserts, or logs, within SQLite's limit of parameters.
  private let most: (inserted: Int, logged: Int)
  /// The statements, prepared at their first use in the batch, then reused for every row.
  private var insertAtVersion: Statement?
  /// The statements that insert, or log, many rows, by their number of rows.
  private var inserts: [Int: Statement] = [:]
  private var logs: [Int: Statement] = [:]
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

  init<Entity>(
    table: EntityTable<Entity>, keys: [Entity.ID], columns: [EntitySchema.Property],
    db: Database, flush: SQLiteFlush
  ) {
    self.table = table.name
    self.db = db
    lastWriterWins = table.conflictPolicy == .lastWriterWins
    var values: [DatabaseValue] = []
    values.reserveCapacity(keys.count)
    for offset in keys.indices { values.append(keys[offset].databaseValue) }
    self.keys = values
    describe = { offset in "\(keys[offset])" }
    rowJSON = { row in
      String(decoding: try JSONEncoder().encode(try table.decode(row)), as: UTF8.self)
    }
    origin = flush.origin
    writtenAt = flush.writtenAt
    count = columns.count
    name = table.quotedName
    let quoted = columns.map(\.name.quotedDatabaseIdentifier)
    insertColumns = (["id"] + quoted + ["version", "position"]).joined(separator: ", ")
    insertValues = Array(repeating: "?", count: columns.count + 3).joined(separator: ", ")
    assignments = quoted.map { "\($0) = ?, " }.joined()
    upsertAssignments = quoted.map { "\($0) = excluded.\($0), " }.joined()
    let parameters = Int(sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
    most = (
      inserted: max(1, min(128, parameters / (columns.count + 3))),
      logged: max(1, min(128, (parameters - 3) / 3))
    )
  }

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
  mutating func delete(_ row: Int, base: Int64?, flush: inout SQLiteFlush) throws {
    try insertWaiting(flush: &flush)
    let id = keys[row]
    // NB: a copy: the statements' SQL is read while a statement slot of `self` is written.
    let quoted = name
    if lastWriterWins {
      let statement = try db.cachedStatement(
        sql: "DELETE FROM \(name) WHERE id = ? RETURNING version")
      guard let version = try Int64.fetchOne(statement, arguments: [id]) else { return }
      record(row, version: version + 1, deleted: true)
      return
    }
    let statement = try Statements.statement(
      &deleteAtVersion, "DELETE FROM \(quoted) WHERE id = ? AND version = ?", count: 2, in: db)
    let db = db
    let found = try run(statement, isDeletion: true, row: row, flush: &flush) { sqlite in
      try Statements.bind(id, at: 1, of: statement, sqlite, in: db)
      try Statements.check(sqlite3_bind_int64(sqlite, 2, base ?? -1), statement, in: db)
    }
    switch found {
    case .changed:
      record(row, version: (base ?? 0) + 1, deleted: true)
    case .unchanged:
      // NB: a row already gone is no conflict: both wanted it deleted.
      if let conflict = try conflict(row, base: base), conflict.currentVersion != nil {
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
    _ row: Int, values: [DatabaseValue], base: Int64?, position: Double?,
    flush: inout SQLiteFlush
  ) throws {
    if lastWriterWins {
      try overwrite(row, values: values, position: position, flush: &flush)
      return
    }
    guard let base else {
      // New to this process: inserted with the rows waiting (a row there already was created by
      // another one: a conflict).
      _ = try firstVersion()
      let position = try position ?? nextAppendedPosition()
      waiting.append(row, values: values, position: position)
      if waiting.rows.count == most.inserted { try insertWaiting(flush: &flush) }
      return
    }
    try insertWaiting(flush: &flush)
    // NB: copies, captured by the bindings instead of the writer.
    let (quoted, count, db, id) = (name, count, db, keys[row])
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
      update, row: row, flush: &flush,
      bindings: { sqlite in
        try Statements.bind(values[...], from: 1, of: update, sqlite, in: db)
        if let position {
          try Statements.check(
            sqlite3_bind_double(sqlite, CInt(count + 1), position), update, in: db)
        }
        try Statements.bind(id, at: CInt(count + 2), of: update, sqlite, in: db)
        try Statements.check(sqlite3_bind_int64(sqlite, CInt(count + 3), base), update, in: db)
      })
    {
    case .changed: record(row, version: base + 1, deleted: false)
    case .unchanged:
      if let conflict = try conflict(row, base: base) { flush.conflicts.append(conflict) }
    case .refused: break
    }
  }

  /// Writes under last-writer-wins: whatever the row's version, at the version after it.
  private mutating func overwrite(
    _ row: Int, values: [DatabaseValue], position: Double?,
    flush: inout SQLiteFlush
  ) throws {
    try insertWaiting(flush: &flush)
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
            [keys[row]] + values + [
              first.databaseValue, inserted.databaseValue, position.databaseValue,
            ]))
        ?? first
    } catch let error as DatabaseError where Self.isRefusal(error) {
      flush.rejected.append(refusal(error, row: row, isDeletion: false, batch: flush.batch))
      return
    }
    record(row, version: version, deleted: false)
  }

  // MARK: - Rows inserted together

  /// Inserts the rows waiting, many to a statement.
  mutating func insertWaiting(flush: inout SQLiteFlush) throws {
    guard !waiting.rows.isEmpty else { return }
    let version = try firstVersion()
    var first = 0
    while first < waiting.rows.count {
      let rows = Self.chunk(of: waiting.rows.count - first, most: most.inserted)
      try insert(first..<(first + rows), version: version, flush: &flush)
      first += rows
    }
    waiting.removeAll()
  }

  /// Inserts the waiting rows at `range` with one statement; when SQLite refuses it (a row
  /// there already, a constraint), one by one, to find the rows at fault.
  private mutating func insert(
    _ range: Range<Int>, version: Int64, flush: inout SQLiteFlush
  ) throws {
    if range.count > 1 {
      let insert = try inserting(range.count)
      let sqlite = insert.sqliteStatement
      let perRow = CInt(count + 3)
      _ = sqlite3_reset(sqlite)
      defer { _ = sqlite3_clear_bindings(sqlite) }
      for (row, index) in zip(CInt(0)..., range) {
        let first = row * perRow
        try Statements.bind(keys[waiting.rows[index]], at: first + 1, of: insert, sqlite, in: db)
        try Statements.bind(
          waiting.values(of: index, count: count), from: first + 2, of: insert, sqlite, in: db)
        try Statements.check(
          sqlite3_bind_int64(sqlite, first + perRow - 1, version), insert, in: db)
        try Statements.check(
          sqlite3_bind_double(sqlite, first + perRow, waiting.positions[index]), insert, in: db)
      }
      do {
        try insert.execute()
        for index in range { record(waiting.rows[index], version: version, deleted: false) }
        return
      } catch let error as DatabaseError where Self.isRefusal(error) {
        // NB: SQLite undid the whole statement (its conflict resolution is ABORT): every row of
        // it is inserted again below, each to its own outcome.
      }
    }
    for index in range { try insertOne(index, version: version, flush: &flush) }
  }

  /// Inserts one waiting row: a row there already is a conflict, a refused one a rejected
  /// write.
  private mutating func insertOne(_ index: Int, version: Int64, flush: inout SQLiteFlush) throws {
    // NB: copies, captured by the bindings instead of the writer.
    let (quoted, columns, placeholders, count, db) = (name, insertColumns, insertValues, count, db)
    let (row, values, position) = (
      waiting.rows[index], waiting.values(of: index, count: count), waiting.positions[index]
    )
    let id = keys[row]
    let insert = try Statements.statement(
      &insertAtVersion, "INSERT INTO \(quoted) (\(columns)) VALUES (\(placeholders))",
      count: count + 3, in: db)
    switch try run(
      insert, row: row, flush: &flush,
      bindings: { sqlite in
        try Statements.bind(id, at: 1, of: insert, sqlite, in: db)
        try Statements.bind(values, from: 2, of: insert, sqlite, in: db)
        try Statements.check(sqlite3_bind_int64(sqlite, CInt(count + 2), version), insert, in: db)
        try Statements.check(
          sqlite3_bind_double(sqlite, CInt(count + 3), position), insert, in: db)
      })
    {
    case .changed: record(row, version: version, deleted: false)
    case .unchanged:
      if let conflict = try conflict(row, base: nil) { flush.conflicts.append(conflict) }
    case .refused: break
    }
  }

  /// The statement that inserts `rows` rows, prepared at its first use in the batch.
  private mutating func inserting(_ rows: Int) throws -> Statement {
    if let statement = inserts[rows] { return statement }
    let values = Array(repeating: "(\(insertValues))", count: rows).joined(separator: ", ")
    let statement = try Statements.prepare(
      "INSERT INTO \(name) (\(insertColumns)) VALUES \(values)", count: rows * (count + 3),
      in: db)
    inserts[rows] = statement
    return statement
  }

  /// The size of the next statement's share of `remaining` rows: `most`, else a quarter of
  /// it, and so on; a batch's statements then take a few sizes, each prepared once.
  private static func chunk(of remaining: Int, most: Int) -> Int {
    var size = most
    while size > remaining { size /= 4 }
    return max(size, 1)
  }

  // MARK: - Log

  /// Inserts the rows waiting and logs every row written: the end of the table's batch.
  mutating func finish(flush: inout SQLiteFlush) throws {
    try insertWaiting(flush: &flush)
    while logged < written.count {
      let rows = Self.chunk(of: written.count - logged, most: most.logged)
      let log = try logging(rows)
      let sqlite = log.sqliteStatement
      _ = sqlite3_reset(sqlite)
      for row in 0..<rows {
        let record = written[logged + row]
        let first = CInt(4 + 3 * row)
        try Statements.bind(keys[record.offset], at: first, of: log, sqlite, in: db)
        try Statements.check(sqlite3_bind_int64(sqlite, first + 1, record.version), log, in: db)
        try Statements.check(
          sqlite3_bind_int(sqlite, first + 2, record.isDeletion ? 1 : 0), log, in: db)
      }
      try log.execute()
      logged += rows
    }
  }

  /// The statement that logs `rows` rows, prepared at its first use in the batch.
  private mutating func logging(_ rows: Int) throws -> Statement {
    if let statement = logs[rows] { return statement }
    let statement = try ChangeLog.statement(
      rows: rows, in: db, table: table, origin: origin, writtenAt: writtenAt)
    logs[rows] = statement
    return statement
  }

  /// The row of `id` now, as a conflict with `base`; `nil` when the row is gone and the write
  /// did not expect it (an update of a row deleted meanwhile is a conflict, with no version).
  private func conflict(_ offset: Int, base: Int64?) throws -> PersistenceConflict? {
    let statement = try db.cachedStatement(sql: "SELECT * FROM \(name) WHERE id = ?")
    let row = try Row.fetchOne(statement, arguments: [keys[offset]])
    let current = try row?.decode(Int64?.self, forColumn: "version")
    // NB: the row as JSON, the form a conflict carries on either backend. A row that does not
    // decode as the entity carries its columns as they are: resolving for it (`keepTheirs`)
    // then fails with `.undecodable`, where no JSON at all would read as a deleted row.
    let json = try row.map { row in
      do {
        return try rowJSON(row)
      } catch {
        return try Self.columnsJSON(of: row)
      }
    }
    guard current != nil || base != nil else { return nil }
    return PersistenceConflict(
      table: table, id: describe(offset), expectedVersion: base, currentVersion: current,
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
    _ statement: Statement, isDeletion: Bool = false, row: Int, flush: inout SQLiteFlush,
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
      flush.rejected.append(refusal(error, row: row, isDeletion: isDeletion, batch: flush.batch))
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

  private func refusal(_ error: DatabaseError, row: Int, isDeletion: Bool, batch: Int)
    -> RejectedWrite
  {
    RejectedWrite(
      batch: batch, table: table, id: describe(row), isDeletion: isDeletion,
      reason: .refused(
        code: "\(error.extendedResultCode)", message: error.message ?? "\(error.resultCode)"))
  }

  /// Records a row written or deleted, for the log and the process's versions.
  private mutating func record(_ row: Int, version: Int64, deleted: Bool) {
    written.append(WrittenRow(offset: row, version: version, isDeletion: deleted))
  }
}

/// Prepares a flush's statements once, binds each row's values in place, and throws what
/// SQLite says when it cannot.
///
/// NB: not members of `RowWriter`: a closure that bound through them captured the writer, which
/// was copied four times a row (when it was generic, through its value witnesses: about 1,900
/// instructions a row).
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

  static func bind(
    _ value: DatabaseValue, at index: CInt, of statement: Statement, _ sqlite: SQLiteStatement,
    in db: Database
  ) throws {
    try check(value.bind(to: sqlite, at: index), statement, in: db)
  }

  /// Binds `values` to the parameters from `first` on.
  static func bind(
    _ values: ArraySlice<DatabaseValue>, from first: CInt, of statement: Statement,
    _ sqlite: SQLiteStatement, in db: Database
  ) throws {
    for (parameter, value) in zip(first..., values) {
      try check(value.bind(to: sqlite, at: parameter), statement, in: db)
    }
  }

  /// Throws the error of a failed `sqlite3_bind_*` call.
  static func check(_ code: CInt, _ statement: Statement, in db: Database) throws {
    guard code != SQLITE_OK else { return }
    throw DatabaseError(
      resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: statement.sql)
  }
}

/// The rows of a batch new to this process waiting to be inserted: their offsets in the batch,
/// their columns' values one after the other, and their positions.
private struct WaitingRows {
  var rows: [Int] = []
  private var values: [DatabaseValue] = []
  var positions: [Double] = []

  mutating func append(_ row: Int, values: [DatabaseValue], position: Double) {
    rows.append(row)
    self.values.append(contentsOf: values)
    positions.append(position)
  }

  /// The values of the row at `index`, of rows of `count` columns.
  func values(of index: Int, count: Int) -> ArraySlice<DatabaseValue> {
    values[(index * count)..<((index + 1) * count)]
  }

  mutating func removeAll() {
    rows.removeAll(keepingCapacity: true)
    values.removeAll(keepingCapacity: true)
    positions.removeAll(keepingCapacity: true)
  }
}
