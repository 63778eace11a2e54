public import EntityTracking
public import GRDB
public import Persistence

import struct Foundation.Data
import class Foundation.JSONDecoder

/// A table holding one `Codable` entity type, one row per entity: the id as primary key, each
/// stored property in a column of its SQL type, a `version` that every write increments (a
/// row made again after a deletion starts above every version its id had, never again at 1),
/// and a `position` that keeps the store's order.
/// An app persists an `EntityStore` through it without writing SQL.
///
/// ```swift
/// let notes = EntityTable<Note>("notes")
/// let migrations = [SQLiteMigration("v1") { db in try notes.create(in: db) }]
/// ```
///
/// ## Columns
/// The columns come from the entity type (``/Persistence/EntitySchema``), with the values
/// GRDB's `Codable` records give them: integers as `INTEGER`, `Bool` as `BOOLEAN`, `Double` as
/// `REAL`, `String` (and `String`-backed enums, `URL`) as `TEXT`, `Data` and `UUID` as `BLOB`,
/// a `Date` as a `REAL` of seconds since 2001-01-01 (exact; `datetime(due + 978307200,
/// 'unixepoch')` reads it), an optional as NULL when `nil`, and a nested value or collection
/// as JSON `TEXT`.
/// Any tool reads the file: `SELECT title FROM cards WHERE due IS NOT NULL`.
///
/// A model that changes keeps its rows (<doc:SchemaEvolution>): a column the table lacks, or
/// one whose type changed, is a ``SQLiteDatabaseError`` that names the table, the column and
/// the migration to write, before anything is read or written.
///
/// ## Several processes on one file
/// A write is made against the version the process last saw (loaded, wrote, or received from
/// the ``SQLiteChangeFeed``): a row another process changed, deleted or created meanwhile is a
/// ``/Persistence/PersistenceConflict``, and the flush fails with
/// ``SQLiteDatabaseError/conflicts(_:)`` until the app resolves it
/// (``SQLiteDatabase/resolve(_:keeping:)``, ``SQLiteDatabase/keepTheirs(_:in:)``): nothing is
/// overwritten silently. A table created with `conflictPolicy: .lastWriterWins` overwrites
/// instead. Every write is also recorded in the file's change log, which the other processes'
/// feeds read.
///
/// ## Order
/// Order is data: each row has a `position` (`REAL`), and ``SQLiteDatabase/load(_:)`` reads
/// rows in increasing position, so it returns a store equal to the one saved through
/// `StateWriter(keyPath:table:database:)`, whatever edits gave its order: inserting, moving,
/// `sort(by:)`, `restore(from:)` (an undo). A move writes the one row that moved: the writer
/// gives it a position between its neighbours' (``/Persistence/EntityChanges``), and other
/// processes' feeds put it at the same place. `SELECT title FROM cards ORDER BY position`
/// reads the cards in the app's order. A writer made from ``SQLiteDatabase/persist(to:)``
/// alone adds new rows after the others and leaves the others where they are.
public struct EntityTable<Entity: Codable & Identifiable & Equatable & Sendable>: Sendable
where Entity.ID: DatabaseValueConvertible & Sendable {
  /// The table's name.
  public let name: String
  /// What a write does to a row another process changed since this one saw it.
  public let conflictPolicy: ConflictPolicy
  /// The entity's stored properties, or why they could not be found.
  private let schema: Result<EntitySchema, EntitySchemaError>

  /// Names the table for `Entity`.
  ///
  /// - Parameters:
  ///   - name: The SQL table's name; it is quoted, so any name works.
  ///   - conflictPolicy: What a conflicting write does (default: refuse it).
  public init(_ name: String, conflictPolicy: ConflictPolicy = .reject) {
    self.name = name
    self.conflictPolicy = conflictPolicy
    do {
      schema = .success(try EntitySchema(of: Entity.self))
    } catch {
      schema = .failure(error)
    }
  }

  /// The columns a row writes besides its id and version: every stored property but the id,
  /// in the entity's decoding order.
  ///
  /// - Throws: ``SQLiteDatabaseError/unsampledProperty(table:_:)`` or
  ///   ``SQLiteDatabaseError/reservedColumn(table:column:)``.
  func columns() throws(SQLiteDatabaseError) -> [EntitySchema.Property] {
    let properties: [EntitySchema.Property]
    switch schema {
    case .success(let schema): properties = schema.properties
    case .failure(let error): throw .unsampledProperty(table: name, error)
    }
    if let reserved = properties.first(where: {
      ["version", "position"].contains($0.name.lowercased())
    }) {
      throw .reservedColumn(table: name, column: reserved.name)
    }
    return properties.filter { $0.name != "id" }
  }

  /// Creates the table, and the file's change log if no table made it before. Call it from a
  /// migration.
  ///
  /// - Parameter db: The migration's database connection.
  /// - Throws: GRDB's `DatabaseError`, for instance when the table already exists, or a
  ///   ``SQLiteDatabaseError`` when the entity's columns cannot be found.
  public func create(in db: Database) throws {
    try create(quotedName, in: db)
    try ChangeLog.create(in: db)
  }

  /// Creates a table of this layout named `quoted`.
  func create(_ quoted: String, in db: Database) throws {
    // NB: `id` has no declared type, so it is not an alias of the rowid: the rowid then keeps
    // first-insertion order, which breaks ties between equal positions.
    let definitions =
      ["id NOT NULL PRIMARY KEY"]
      + (try columns().map { "\($0.name.quotedDatabaseIdentifier) \(Self.sqlType($0.kind))" })
      + ["version INTEGER NOT NULL DEFAULT 1", "position REAL NOT NULL DEFAULT 0"]
    try db.execute(sql: "CREATE TABLE \(quoted) (\(definitions.joined(separator: ", ")))")
  }

  /// The SQL type of a column that stores `kind`.
  static func sqlType(_ kind: EntitySchema.Kind) -> String {
    switch kind {
    case .integer: "INTEGER"
    case .boolean: "BOOLEAN"
    case .real, .date: "REAL"
    case .text, .json: "TEXT"
    case .blob, .uuid: "BLOB"
    }
  }

  /// Brings a table made by a release before versions (ReduxKit before 0.4: `id` and `data`
  /// only) to this one: adds the `version` column (every row at version 1) and the change log.
  /// Call it from a new migration; it does nothing to a table that has them.
  ///
  /// ```swift
  /// SQLiteMigration("v2-versions") { db in try notes.addVersions(in: db) }
  /// ```
  ///
  /// - Parameter db: The migration's database connection.
  /// - Throws: GRDB's `DatabaseError`, for instance when the table does not exist.
  /// - Complexity: O(1): SQLite adds a column with a constant default without rewriting rows.
  public func addVersions(in db: Database) throws {
    if try !db.columns(in: name).contains(where: { $0.name == "version" }) {
      try db.execute(
        sql: "ALTER TABLE \(quotedName) ADD COLUMN version INTEGER NOT NULL DEFAULT 1")
    }
    try ChangeLog.create(in: db)
  }

  /// Brings a table made by a release that kept rows in insertion order (ReduxKit before
  /// 0.7: no `position`) to this one: adds the `position` column, each row numbered in its
  /// order then (its rowid). Call it from a new migration; it does nothing to a table that
  /// has it.
  ///
  /// ```swift
  /// SQLiteMigration("v4-positions") { db in try notes.addPositions(in: db) }
  /// ```
  ///
  /// - Parameter db: The migration's database connection.
  /// - Throws: GRDB's `DatabaseError`, for instance when the table does not exist.
  /// - Complexity: O(*n*): every row is given its position.
  public func addPositions(in db: Database) throws {
    guard try !db.columns(in: name).contains(where: { $0.name == "position" }) else { return }
    try db.execute(
      sql: "ALTER TABLE \(quotedName) ADD COLUMN position REAL NOT NULL DEFAULT 0")
    try db.execute(sql: "UPDATE \(quotedName) SET position = rowid")
  }

  @usableFromInline var quotedName: String { name.quotedDatabaseIdentifier }

  /// Throws, before anything reads or writes the table, when it does not have the layout this
  /// release writes or the columns `Entity` needs: made by an earlier release
  /// (``SQLiteDatabaseError/unversionedTable(table:)``,
  /// ``SQLiteDatabaseError/jsonTable(table:)``), a property added
  /// (``SQLiteDatabaseError/missingColumn(table:column:declaration:)``), or a type changed
  /// (``SQLiteDatabaseError/columnTypeChanged(table:column:stored:expected:)``).
  ///
  /// - Returns: The columns a row writes.
  @discardableResult
  @usableFromInline
  func checkColumns(_ db: Database) throws -> [EntitySchema.Property] {
    let stored = try db.columns(in: name)
    var types: [String: String] = [:]
    for column in stored { types[column.name.lowercased()] = column.type.uppercased() }
    guard types["version"] != nil, try ChangeLog.exists(in: db) else {
      throw SQLiteDatabaseError.unversionedTable(table: name)
    }
    let columns = try columns()
    if types["data"] != nil, !columns.contains(where: { $0.name.lowercased() == "data" }) {
      throw SQLiteDatabaseError.jsonTable(table: name)
    }
    guard types["position"] != nil else {
      throw SQLiteDatabaseError.unpositionedTable(table: name)
    }
    for column in columns {
      let expected = Self.sqlType(column.kind)
      guard let type = types[column.name.lowercased()] else {
        throw SQLiteDatabaseError.missingColumn(
          table: name, column: column.name,
          declaration: "\(column.name.quotedDatabaseIdentifier) \(expected)")
      }
      guard type == expected else {
        throw SQLiteDatabaseError.columnTypeChanged(
          table: name, column: column.name, stored: type, expected: expected)
      }
    }
    return columns
  }

  /// What a load reads: the rows in order, as a store that records no changes, with the
  /// version and position of each.
  @usableFromInline
  struct Loaded: Sendable {
    @usableFromInline var store: EntityStore<Entity>
    @usableFromInline var versions: [Entity.ID: Int64]
    @usableFromInline var positions: [Entity.ID: Double]

    @inlinable
    init(
      store: EntityStore<Entity>, versions: [Entity.ID: Int64], positions: [Entity.ID: Double]
    ) {
      self.store = store
      self.versions = versions
      self.positions = positions
    }
  }

  /// Reads every row, in order of position, into a store that records no changes, with the
  /// version and position of each.
  ///
  /// NB: inlinable, for ``SQLiteDatabase/load(_:)``: the loop over the rows is specialized
  /// for the app's entity.
  @inlinable
  func load(from db: Database) throws -> Loaded {
    try checkColumns(db)
    var entities: [Entity] = []
    var versions: [Entity.ID: Int64] = [:]
    var positions: [Entity.ID: Double] = [:]
    let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quotedName)") ?? 0
    entities.reserveCapacity(count)
    versions.reserveCapacity(count)
    positions.reserveCapacity(count)
    let statement = try db.makeStatement(
      sql: "SELECT * FROM \(quotedName) ORDER BY position, rowid")
    let columns = statement.columnNames
    let decoder = ColumnDecoder(columns: columns, statement: statement.sqliteStatement)
    // NB: found once, not by name in each row.
    guard
      let version = columns.firstIndex(of: "version"),
      let position = columns.firstIndex(of: "position")
    else { throw SQLiteDatabaseError.unversionedTable(table: name) }
    let rows = try Row.fetchCursor(statement)
    while let row = try rows.next() {
      let entity = try decode(row, with: decoder)
      versions[entity.id] = try row.decode(Int64.self, atIndex: version)
      positions[entity.id] = try row.decode(Double.self, atIndex: position)
      entities.append(entity)
    }
    return Loaded(store: EntityStore(entities), versions: versions, positions: positions)
  }

  /// The entities a query of the table's rows selects (`SELECT * FROM "cards" WHERE …`),
  /// decoded as a load decodes them: a first screenful read through an index of the app's, a
  /// report, a search in SQL. Nothing is recorded: a flush still writes against the versions
  /// the load saw.
  ///
  /// ```swift
  /// let firstPage = try await database.writer.read { db in
  ///   try cards.fetchAll(
  ///     db, sql: "SELECT * FROM cards WHERE columnID = ? ORDER BY position LIMIT 40",
  ///     arguments: [columnID])
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - db: A database connection.
  ///   - sql: A query of the table's rows; each row holds the entity's columns (`*`).
  ///   - arguments: The query's arguments.
  /// - Returns: The entities, in the query's order.
  /// - Throws: ``SQLiteDatabaseError/undecodable(table:id:underlying:)`` when a row does not
  ///   decode, an error of the table's layout as ``SQLiteDatabase/load(_:)`` throws it, or
  ///   GRDB's `DatabaseError`.
  @inlinable
  public func fetchAll(
    _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
  ) throws -> [Entity] {
    try checkColumns(db)
    let statement = try db.makeStatement(sql: sql)
    let decoder = ColumnDecoder(
      columns: statement.columnNames, statement: statement.sqliteStatement)
    var entities: [Entity] = []
    let rows = try Row.fetchCursor(statement, arguments: arguments)
    while let row = try rows.next() { entities.append(try decode(row, with: decoder)) }
    return entities
  }

  /// Decodes a row of the table.
  ///
  /// NB: decoded with a throw, not a subscript's trap: a value of another type (a damaged
  /// file, another tool's write) is a corrupt row, reported, never a crash.
  func decode(_ row: Row) throws(SQLiteDatabaseError) -> Entity {
    try decode(row, with: ColumnDecoder(columns: Array(row.columnNames)))
  }

  /// Decodes a row of the table with a decoder made for its columns: a load makes one for all
  /// its rows.
  @usableFromInline
  func decode(_ row: Row, with decoder: ColumnDecoder) throws(SQLiteDatabaseError)
    -> Entity
  {
    do {
      return try decoder.decode(Entity.self, from: row)
    } catch {
      throw .undecodable(table: name, id: "\(row["id"] as DatabaseValue)", underlying: error)
    }
  }

  /// The entity stored under `id` now, `nil` when there is no such row.
  ///
  /// - Throws: ``SQLiteDatabaseError/undecodable(table:id:underlying:)``, or the database's
  ///   failure.
  package func entity(_ id: Entity.ID, in db: Database) throws -> Entity? {
    try checkColumns(db)
    let statement = try db.cachedStatement(sql: "SELECT * FROM \(quotedName) WHERE id = ?")
    return try Row.fetchOne(statement, arguments: [id]).map { row throws in try decode(row) }
  }

  /// Decodes a row's JSON (a conflict's current value, say).
  ///
  /// - Parameters:
  ///   - json: The row's `data`.
  ///   - id: The row's id, for the error.
  /// - Returns: The entity.
  /// - Throws: ``SQLiteDatabaseError/undecodable(table:id:underlying:)``.
  public func decode(_ json: String, id: String) throws(SQLiteDatabaseError) -> Entity {
    do {
      return try JSONDecoder().decode(Entity.self, from: Data(json.utf8))
    } catch {
      throw .undecodable(table: name, id: id, underlying: error)
    }
  }

  /// The entity's id from its text form (a conflict's): an integer or text id whose
  /// description is `text`.
  package func id(described text: String) -> Entity.ID? {
    for value in [Int64(text)?.databaseValue, text.databaseValue].compactMap({ $0 }) {
      if let id = Entity.ID.fromDatabaseValue(value), "\(id)" == text { return id }
    }
    return nil
  }
}
