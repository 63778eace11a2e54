import EntityTracking
import Foundation
public import Logging
public import Persistence
public import PostgresNIO

/// A table holding one `Codable` entity type, one row per entity: the id (as text), each stored
/// property in a column of its SQL type, a `version` that every write increments (optimistic
/// concurrency; a row made again after a deletion starts above every version its id had, never
/// again at 1), the instance that wrote it last, and a `position` that keeps the store's order.
///
/// The columns come from the entity type (``/Persistence/EntitySchema``): integers as `bigint`,
/// `Bool` as `boolean`, `Double` as `double precision`, `String` (and `String`-backed enums) as
/// `text`, `UUID` as `uuid`, a `Date` as a `double precision` of seconds since 2001-01-01 (as on
/// SQLite: exact; `to_timestamp(due + 978307200)` reads it), `Data` as base64 `text`, an
/// optional as NULL, and a nested value or collection as `jsonb`. A flush sends each column of
/// its rows as one typed array (`UNNEST`); a load decodes each row's columns through
/// postgres-nio. A column the table lacks, or whose type changed, is a
/// ``PostgresBackendError`` at the load, which names the migration step to write
/// (``addColumns(on:defaults:logger:)``, ``renameColumn(_:to:on:logger:)``).
///
/// ```swift
/// let cards = PostgresTable<Card>("cards")
/// let database = try await PostgresBackend(url: url, instance: "web-1", migrations: [
///   PostgresMigration("v1") { connection in try await cards.create(on: connection) },
/// ])
/// ```
public struct PostgresTable<Entity: Codable & Identifiable & Equatable & Sendable>: Sendable
where Entity.ID: LosslessStringConvertible & Sendable {
  /// What a write does to a row another instance changed since this one saw it: refuse the
  /// flush with ``PostgresBackendError/conflicts(_:)`` (the default), or overwrite (only when
  /// the app asks for it). The same choices as on SQLite.
  public typealias ConflictPolicy = Persistence.ConflictPolicy

  /// The table's name.
  public let name: String
  /// What a conflicting write does.
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

  /// The columns a row holds besides its id and the table's own: every stored property but the
  /// id, in the entity's decoding order.
  func columns() throws(PostgresBackendError) -> [EntitySchema.Property] {
    let properties: [EntitySchema.Property]
    switch schema {
    case .success(let schema): properties = schema.properties
    case .failure(let error): throw .unsampledProperty(table: name, error)
    }
    let reserved: Set = ["version", "position", "updated_by", "updated_at"]
    if let property = properties.first(where: { reserved.contains($0.name.lowercased()) }) {
      throw .reservedColumn(table: name, column: property.name)
    }
    return properties.filter { $0.name != "id" }
  }

  /// The SQL type of a column that stores `kind`, as `information_schema` spells it.
  static func sqlType(_ kind: EntitySchema.Kind) -> String {
    switch kind {
    case .integer: "bigint"
    case .boolean: "boolean"
    case .real, .date: "double precision"
    case .text, .blob: "text"
    case .uuid: "uuid"
    case .json: "jsonb"
    }
  }

  static func quoted(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  /// The SQL of a row `t` as the entity's JSON text: its columns, and the id in the JSON type
  /// the entity's id decodes from (the column holds it as text).
  var rowJSON: String {
    // NB: a schema that could not be found leaves the id as text; the table's columns are
    // refused with the reason before any row is read.
    var kind: EntitySchema.Kind?
    if case .success(let schema) = schema { kind = schema.property(named: "id")?.kind }
    let id: String
    switch kind {
    case .integer: id = "t.id::bigint"
    case .real: id = "t.id::float8"
    default: id = "t.id"
    }
    return "(to_jsonb(t) || jsonb_build_object('id', \(id)))::text"
  }

  /// Throws, before anything reads or writes the table, when it lacks a column the entity
  /// needs (``PostgresBackendError/missingColumn(table:column:declaration:)``), holds it with
  /// another type (``PostgresBackendError/columnTypeChanged(table:column:stored:expected:)``),
  /// or is still of the JSON layout (``PostgresBackendError/jsonTable(table:)``).
  func checkColumns(on connection: PostgresConnection, logger: Logger) async throws {
    let types = try await storedColumns(on: connection, logger: logger)
    let columns = try columns()
    if types["data"] != nil, !columns.contains(where: { $0.name == "data" }) {
      throw PostgresBackendError.jsonTable(table: name)
    }
    guard types["position"] == "double precision" else {
      throw PostgresBackendError.unpositionedTable(table: name)
    }
    for column in columns {
      let expected = Self.sqlType(column.kind)
      guard let type = types[column.name] else {
        throw PostgresBackendError.missingColumn(
          table: name, column: column.name, declaration: "\(Self.quoted(column.name)) \(expected)")
      }
      guard type == expected else {
        throw PostgresBackendError.columnTypeChanged(
          table: name, column: column.name, stored: type, expected: expected)
      }
    }
  }

  var quotedName: String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
  private var quotedSequence: String {
    "\"" + (name + "_position").replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  /// Creates the table. Call it from a migration.
  ///
  /// - Parameters:
  ///   - connection: The migration's connection (inside its transaction).
  ///   - logger: Receives the driver's messages about the statements.
  /// - Throws: The server's error, for instance when the table already exists, or a
  ///   ``PostgresBackendError`` when the entity's columns cannot be found.
  public func create(
    on connection: PostgresConnection,
    logger: Logger = Logger(label: "ReduxKit.PersistencePostgres")
  ) async throws {
    try await connection.query(
      PostgresQuery(unsafeSQL: "CREATE SEQUENCE \(quotedSequence)"), logger: logger)
    try await connection.query(
      PostgresQuery(
        unsafeSQL: """
          CREATE TABLE \(quotedName) (
            id text PRIMARY KEY,\(try columns().map { "\n" + Self.quoted($0.name) + " " + Self.sqlType($0.kind) + "," }.joined())
            version bigint NOT NULL,
            position double precision NOT NULL DEFAULT nextval('\(quotedSequence)'),
            updated_by text NOT NULL,
            updated_at timestamptz NOT NULL DEFAULT now()
          )
          """), logger: logger)
    try await connection.query(
      PostgresQuery(unsafeSQL: "CREATE INDEX ON \(quotedName) (position)"),
      logger: logger)
  }

  /// What a load reads: the rows in order, as a store that records no changes, with the
  /// version and position of each.
  struct Loaded {
    var store: EntityStore<Entity>
    var versions: [Entity.ID: Int64]
    var positions: [Entity.ID: Double]
  }

  /// The rows in store order, with their versions and positions.
  func load(on connection: PostgresConnection, logger: Logger) async throws -> Loaded {
    try await checkColumns(on: connection, logger: logger)
    let rows = try await connection.allRows(
      PostgresQuery(unsafeSQL: "SELECT * FROM \(quotedName) ORDER BY position, id"),
      logger: logger)
    var layout: RowLayout?
    var entities: [Entity] = []
    var versions: [Entity.ID: Int64] = [:]
    var positions: [Entity.ID: Double] = [:]
    for row in rows {
      let stored = try StoredRow(row, layout: &layout)
      let entity = try entity(of: stored)
      entities.append(entity)
      versions[entity.id] = stored.version
      positions[entity.id] = stored.position
    }
    return Loaded(store: EntityStore(entities), versions: versions, positions: positions)
  }

  /// A row's columns of the table's own, and the row for ``RowDecoder``.
  private struct StoredRow {
    let id: String
    let version: Int64
    let position: Double
    let origin: String
    let row: PostgresRandomAccessRow
    let layout: RowLayout

    /// - Parameter layout: The layout of the read's rows, made from the first.
    init(_ row: PostgresRow, layout: inout RowLayout?) throws {
      let cells = row.makeRandomAccess()
      let read = layout ?? RowLayout(of: cells)
      layout = read
      func cell(_ name: String) -> PostgresCell {
        // NB: every table's row has them (`checkColumns`, `create`).
        cells[read.place(of: name) ?? 0]
      }
      id = try cell("id").decode(String.self)
      version = try cell("version").decode(Int64.self)
      position = try cell("position").decode(Double.self)
      origin = try cell("updated_by").decode(String.self)
      self.row = cells
      self.layout = read
    }
  }

  /// The entity a row stores.
  ///
  /// - Throws: ``PostgresBackendError/undecodable(table:id:underlying:)``.
  private func entity(of stored: StoredRow) throws(PostgresBackendError) -> Entity {
    do {
      return try RowDecoder.decode(Entity.self, from: stored.row, layout: stored.layout)
    } catch {
      throw .undecodable(table: name, id: stored.id, underlying: error)
    }
  }

  /// The current rows of the ids `records` name, as remote changes: one per row, in the
  /// order of its last record; a row gone since is a deletion, a row changed again since is
  /// delivered at its newer version.
  func remoteChanges(
    _ records: [ChangeRecord], on connection: PostgresConnection, book: VersionBook,
    instance: String, logger: Logger
  ) async throws -> RemoteChanges<Entity> {
    var seen = Set<String>()
    var latest: [ChangeRecord] = []
    for record in records.reversed() where seen.insert(record.id).inserted {
      latest.append(record)
    }
    latest.reverse()
    var bindings = PostgresBindings()
    bindings.append(latest.map(\.id))
    let rows = try await connection.allRows(
      PostgresQuery(
        unsafeSQL: "SELECT * FROM \(quotedName) WHERE id = ANY($1::text[])", binds: bindings),
      logger: logger)
    var layout: RowLayout?
    var current: [String: StoredRow] = [:]
    for row in rows {
      let stored = try StoredRow(row, layout: &layout)
      current[stored.id] = stored
    }
    var changes: [RemoteChanges<Entity>.Change] = []
    changes.reserveCapacity(latest.count)
    for record in latest {
      let key = record.id
      guard let id = Entity.ID(key) else {
        logger.error(
          "change feed: a row's id does not parse as the entity's id; skipped",
          metadata: ["table": "\(name)", "id": "\(key)"])
        continue
      }
      guard let row = current[key] else {
        changes.append(.init(id: id, entity: nil, version: record.version, origin: record.origin))
        continue
      }
      do {
        changes.append(
          .init(
            id: id, entity: try entity(of: row), version: row.version, origin: row.origin,
            position: row.position))
      } catch {
        logger.error(
          "change feed: a row does not decode; skipped",
          metadata: ["table": "\(name)", "id": "\(key)", "error": "\(error)"])
      }
    }
    return RemoteChanges(
      table: name, changes: changes, versions: book.table(name, keyedBy: Entity.ID.self),
      key: { $0 })
  }

  /// Every difference between the table and the versions `book` has seen, as remote changes:
  /// rows newer than seen (or never seen), and rows seen that are gone (deletions). For a
  /// feed that lost its place in the log.
  ///
  /// - Complexity: O(*n*), the rows of the table.
  func differences(from book: VersionBook, on connection: PostgresConnection, logger: Logger)
    async throws -> RemoteChanges<Entity>
  {
    let versions = book.table(name, keyedBy: Entity.ID.self)
    var unseen = versions.seen
    let rows = try await connection.allRows(
      PostgresQuery(unsafeSQL: "SELECT * FROM \(quotedName) ORDER BY position, id"),
      logger: logger)
    var layout: RowLayout?
    var changes: [RemoteChanges<Entity>.Change] = []
    for row in rows {
      let stored = try StoredRow(row, layout: &layout)
      guard let id = Entity.ID(stored.id) else { continue }
      let seen = unseen.removeValue(forKey: id)
      guard seen.map({ $0 < stored.version }) ?? true else { continue }
      do {
        changes.append(
          .init(
            id: id, entity: try entity(of: stored), version: stored.version,
            origin: stored.origin, position: stored.position))
      } catch {
        logger.error(
          "change feed: a row does not decode; skipped",
          metadata: ["table": "\(name)", "id": "\(stored.id)", "error": "\(error)"])
      }
    }
    for (id, version) in unseen {
      changes.append(.init(id: id, entity: nil, version: version + 1, origin: "database"))
    }
    return RemoteChanges(table: name, changes: changes, versions: versions, key: { $0 })
  }

  /// Encodes `changes` into the batch a flush commits: what
  /// `StateWriter(keyPath:table:database:)` hands the database.
  ///
  /// - Parameter changes: A writer's changes.
  /// - Returns: The batch; an entity that does not encode fails the flush that commits it.
  public func batch(_ changes: EntityChanges<Entity>) -> PostgresBatch {
    batch(changes, versions: BatchVersions.init)
  }

  /// The batch of `changes`, its versions kept by `versions`: the writer's initializer passes
  /// it from the app's module, where it is specialized for the entity's id.
  @usableFromInline
  func batch(
    _ changes: EntityChanges<Entity>,
    versions: (_ table: String, _ ids: [Entity.ID], _ texts: [String]) -> BatchVersions
  ) -> PostgresBatch {
    let hasPositions = !changes.positions.isEmpty
    // NB: an entity whose columns cannot be found fails each of its writes with the reason
    // (the load refused the table before, for the same reason).
    var properties: [EntitySchema.Property] = []
    var unencodable: (any Error)?
    do {
      properties = try columns()
    } catch {
      unencodable = error
    }
    let encoder = RowEncoder(columns: properties, rows: changes.writes.count)
    var ids: [Entity.ID] = []
    var texts: [String] = []
    ids.reserveCapacity(changes.writes.count + changes.deletions.count)
    texts.reserveCapacity(ids.capacity)
    let writes = changes.writes.indices.map { offset in
      let entity = changes.writes[offset]
      let text = entity.id.description
      ids.append(entity.id)
      texts.append(text)
      return PostgresBatch.Write(
        id: text, offset: offset,
        row: unencodable.map { .failure($0) } ?? encoder.encode(entity),
        position: hasPositions ? changes.positions[offset] : nil)
    }
    let deletions = changes.deletions.map(\.description)
    ids += changes.deletions
    texts += deletions
    return PostgresBatch(
      table: name, quotedName: quotedName, quotedSequence: quotedSequence,
      columns: properties.map { Self.quoted($0.name) }, kinds: properties.map(\.kind),
      values: encoder.values, rowJSON: rowJSON,
      lastWriterWins: conflictPolicy == .lastWriterWins, writes: writes, deletions: deletions,
      versions: versions(name, ids, texts))
  }

  /// Decodes a row's JSON (a conflict's current value, say).
  ///
  /// - Parameters:
  ///   - json: The row as JSON.
  ///   - id: The row's id, for the error.
  /// - Returns: The entity.
  /// - Throws: ``PostgresBackendError/undecodable(table:id:underlying:)``.
  public func decode(_ json: String, id: String) throws(PostgresBackendError) -> Entity {
    do {
      return try JSONDecoder().decode(Entity.self, from: Data(json.utf8))
    } catch {
      throw .undecodable(table: name, id: id, underlying: error)
    }
  }
}
