public import Logging
import Persistence
public import PostgresNIO

/// The migration steps of a table whose entity changed, or whose database an earlier release
/// made. Each runs in a ``PostgresMigration``'s transaction: all of it or nothing.
extension PostgresTable {
  /// Converts a table made by a release before typed columns (each entity as `jsonb` in a
  /// `data` column) to a column per property, keeping every row's id, version and position.
  /// It also does what ``addPositions(on:logger:)`` does, so a database of any earlier release
  /// needs this step alone. A table that already has typed columns is left as it is.
  ///
  /// ```swift
  /// PostgresMigration("v2-columns") { connection in try await cards.convertToColumns(on: connection) }
  /// ```
  ///
  /// - Parameters:
  ///   - connection: The migration's connection (inside its transaction).
  ///   - logger: Receives the driver's messages about the statements.
  /// - Throws: The server's error (a value that does not convert to its column's type, say:
  ///   nothing is converted), or a ``PostgresBackendError`` when the entity's columns cannot
  ///   be found.
  /// - Complexity: O(*n*): every row is rewritten, by the server.
  public func convertToColumns(
    on connection: PostgresConnection,
    logger: Logger = Logger(label: "ReduxKit.PersistencePostgres")
  ) async throws {
    let columns = try self.columns()
    let types = try await storedColumns(on: connection, logger: logger)
    guard types["data"] != nil, !columns.contains(where: { $0.name == "data" }) else { return }
    for column in columns where types[column.name] == nil {
      try await connection.query(
        PostgresQuery(
          unsafeSQL: """
            ALTER TABLE \(quotedName) ADD COLUMN \(Self.quoted(column.name)) \
            \(Self.sqlType(column.kind))
            """), logger: logger)
    }
    let names = columns.map { Self.quoted($0.name) }
    if !names.isEmpty {
      // NB: the JSON spread into the table's row type: each key into the column of its name,
      // converted to its type by the server, as a flush writes it.
      try await connection.query(
        PostgresQuery(
          unsafeSQL: """
            UPDATE \(quotedName) AS t SET (\(names.joined(separator: ", "))) =
              (SELECT \(names.map { "p.\($0)" }.joined(separator: ", "))
               FROM jsonb_populate_record(NULL::\(quotedName), t.data) AS p)
            """), logger: logger)
    }
    try await connection.query(
      PostgresQuery(unsafeSQL: "ALTER TABLE \(quotedName) DROP COLUMN data"), logger: logger)
    try await addPositions(on: connection, logger: logger)
  }

  /// Brings a table made by a release whose positions were whole numbers (ReduxKit before 0.7)
  /// to fractional ones (`double precision`), which leave room between any two rows, so that
  /// a move writes one row. Every row keeps its place. Call it from a new migration; it does
  /// nothing to a table that has them.
  ///
  /// ```swift
  /// PostgresMigration("v3-positions") { c in try await cards.addPositions(on: c) }
  /// ```
  ///
  /// - Parameters:
  ///   - connection: The migration's connection (inside its transaction).
  ///   - logger: Receives the driver's messages about the statements.
  /// - Throws: The server's error.
  /// - Complexity: O(*n*): the server rewrites the table.
  public func addPositions(
    on connection: PostgresConnection,
    logger: Logger = Logger(label: "ReduxKit.PersistencePostgres")
  ) async throws {
    let types = try await storedColumns(on: connection, logger: logger)
    guard types["position"] != "double precision" else { return }
    try await connection.query(
      PostgresQuery(
        unsafeSQL: "ALTER TABLE \(quotedName) ALTER COLUMN position TYPE double precision"),
      logger: logger)
  }

  /// Adds a column for each property the entity has and the table lacks (a property added to
  /// the entity type). An optional property, or one decoded with `decodeIfPresent` and a
  /// default, needs nothing more: old rows load with `nil` there. Any other needs its value
  /// for the rows already stored, in `defaults`.
  ///
  /// ```swift
  /// PostgresMigration("v3-priority") { c in try await cards.addColumns(on: c, defaults: ["priority": 0]) }
  /// ```
  ///
  /// - Parameters:
  ///   - connection: The migration's connection (inside its transaction).
  ///   - defaults: Values for the stored rows, by column, as the column stores them (a date as
  ///     seconds since 2001-01-01: `date.timeIntervalSinceReferenceDate`).
  ///   - logger: Receives the driver's messages about the statements.
  /// - Throws: ``PostgresBackendError/missingColumn(table:column:declaration:)`` for a
  ///   property that is neither optional nor in `defaults`, or the server's error.
  public func addColumns(
    on connection: PostgresConnection, defaults: [String: any PostgresEncodable & Sendable] = [:],
    logger: Logger = Logger(label: "ReduxKit.PersistencePostgres")
  ) async throws {
    let types = try await storedColumns(on: connection, logger: logger)
    for column in try columns() where types[column.name] == nil {
      let declaration = "\(Self.quoted(column.name)) \(Self.sqlType(column.kind))"
      let value = defaults[column.name]
      guard column.isOptional || value != nil else {
        throw PostgresBackendError.missingColumn(
          table: name, column: column.name, declaration: declaration)
      }
      try await connection.query(
        PostgresQuery(unsafeSQL: "ALTER TABLE \(quotedName) ADD COLUMN \(declaration)"),
        logger: logger)
      if let value {
        var bindings = PostgresBindings()
        try bindings.append(value)
        try await connection.query(
          PostgresQuery(
            unsafeSQL: """
              UPDATE \(quotedName) SET \(Self.quoted(column.name)) = \
              $1::\(Self.sqlType(column.kind))
              """, binds: bindings), logger: logger)
      }
    }
  }

  /// Renames a column (a property renamed, its coding key with it), keeping its values.
  ///
  /// - Parameters:
  ///   - old: The column's name now.
  ///   - new: The property's new coding key.
  ///   - connection: The migration's connection (inside its transaction).
  ///   - logger: Receives the driver's messages about the statements.
  /// - Throws: The server's error, for instance when no column is named `old`.
  public func renameColumn(
    _ old: String, to new: String, on connection: PostgresConnection,
    logger: Logger = Logger(label: "ReduxKit.PersistencePostgres")
  ) async throws {
    try await connection.query(
      PostgresQuery(
        unsafeSQL:
          "ALTER TABLE \(quotedName) RENAME COLUMN \(Self.quoted(old)) TO \(Self.quoted(new))"),
      logger: logger)
  }

  /// The table's columns now, and their types as `information_schema` spells them.
  func storedColumns(on connection: PostgresConnection, logger: Logger) async throws
    -> [String: String]
  {
    var bindings = PostgresBindings()
    bindings.append(name)
    let rows = try await connection.query(
      PostgresQuery(
        unsafeSQL: """
          SELECT column_name, data_type FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = $1
          """, binds: bindings), logger: logger)
    var types: [String: String] = [:]
    for try await (column, type) in rows.decode((String, String).self) { types[column] = type }
    return types
  }
}
