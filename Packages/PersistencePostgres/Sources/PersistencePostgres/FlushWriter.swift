import Logging
import Persistence
import PostgresNIO

/// What one flush's transaction did so far: the rows it wrote (for the versions this instance
/// has seen) and the conflicts it met.
struct FlushOutcome: Sendable {
  /// The rows each batch wrote or deleted, at their new versions, in the batches' order.
  var written: [[WrittenRow]] = []
  var conflicts: [PersistenceConflict] = []
}

/// Writes one writer's batch inside a flush's transaction: versioned deletes, versioned
/// updates, inserts of rows new to this instance. Each is one statement over arrays (`UNNEST`)
/// that also appends its change-log rows (a data-modifying `WITH`), and answers only with the
/// exceptions: the rows that did not take effect (conflicts), and, under last-writer-wins, the
/// rows whose new version is not the one expected. A flush of n rows sends each row once and
/// reads back nothing for it.
struct FlushWriter {
  let batch: PostgresBatch
  let connection: PostgresConnection
  let instance: String
  let logger: Logger
  /// The version each change was made against, and the changes dropped.
  let bases: RowBases

  private var versions: [String: Int64] { bases.versions }
  private var dropped: [String: Int64?] { bases.dropped }

  private var table: String { batch.quotedName }

  /// The entity's columns, each with the name of its array in `UNNEST … AS u(…)`: `c0`, `c1`, …
  /// (names of ours: a property may be called `id` or `n`).
  private var aliased: [(column: String, alias: String)] {
    batch.columns.enumerated().map { ($1, "c\($0)") }
  }
  /// The entity's columns, after a comma each.
  private var columnList: String { aliased.map { ", \($0.column)" }.joined() }
  /// The values of the entity's columns in `u`, after a comma each.
  private var valueList: String { aliased.map { ", u.\($0.alias)" }.joined() }
  /// The names of the entity's arrays in `u`, after a comma each.
  private var aliasList: String { aliased.map { ", \($0.alias)" }.joined() }
  /// The entity's arrays, parameters from `$first` on, after a comma each.
  private func arrays(from first: Int) -> String {
    batch.columns.indices.map { ", $\(first + $0)" }.joined()
  }

  func write(into outcome: inout FlushOutcome) async throws {
    var written: [WrittenRow] = []
    try await delete(into: &outcome, written: &written)
    try await upsert(into: &outcome, written: &written)
    outcome.written.append(written)
  }

  private func delete(into outcome: inout FlushOutcome, written: inout [WrittenRow])
    async throws
  {
    let offsets = batch.deletions.indices.filter { dropped[batch.deletions[$0]] == nil }
    guard !offsets.isEmpty else { return }
    let ids = offsets.map { batch.deletions[$0] }
    let bases = ids.map { versions[$0] ?? -1 }
    let exceptions = try await exceptions(
      """
      WITH done AS (
        DELETE FROM \(table) AS r USING UNNEST($1::text[], $2::bigint[]) AS d(id, base)
        WHERE r.id = d.id AND (r.version = d.base OR $3)
        RETURNING r.id, r.version + 1 AS version, d.base + 1 AS expected
      ), \(logged("delete", table: "$4", origin: "$5", order: "id"))
      """, ids: ids, binds: binds(ids, bases, batch.lastWriterWins, batch.table, instance))
    written += ids.indices.compactMap { index in
      let id = ids[index]
      guard !exceptions.missed.contains(id) else { return nil }
      return WrittenRow(
        offset: batch.writes.count + offsets[index],
        version: exceptions.versions[id] ?? bases[index] + 1, isDeletion: true)
    }
    // NB: a row already gone is no conflict: both instances wanted it deleted.
    outcome.conflicts += try await conflicts(Array(exceptions.missed), bases: versions).filter {
      $0.currentVersion != nil
    }
  }

  private func upsert(into outcome: inout FlushOutcome, written: inout [WrittenRow])
    async throws
  {
    var updates: [PostgresBatch.Write] = []
    var inserts: [PostgresBatch.Write] = []
    // NB: no lookup where none can match: each hashes the row's id.
    let writes = dropped.isEmpty ? batch.writes : batch.writes.filter { dropped[$0.id] == nil }
    if versions.isEmpty {
      inserts = writes
    } else {
      for write in writes {
        if versions[write.id] != nil { updates.append(write) } else { inserts.append(write) }
      }
    }
    var missed: [String] = []
    // NB: a row new to a batch without positions takes one after every row, taken here, in the
    // batch's order, rather than by `nextval` inside the statements, whose order of
    // evaluation is not defined.
    var positions = try await newPositions(
      for: writes.filter { $0.position == nil && versions[$0.id] == nil })
    if !updates.isEmpty {
      let unmatched = try await update(updates, positions: positions, written: &written)
      if batch.lastWriterWins {
        // Deleted meanwhile: written again, at its position or at the end.
        let more = try await newPositions(
          for: unmatched.filter { $0.position == nil && positions[$0.id] == nil })
        positions.merge(more) { old, _ in old }
        inserts += unmatched
      } else {
        missed += unmatched.map(\.id)
      }
    }
    if !inserts.isEmpty {
      missed += try await insert(inserts, positions: positions, written: &written)
    }
    outcome.conflicts += try await conflicts(missed, bases: versions)
  }

  /// Positions for `writes`, in their order, after every position taken before: one `nextval`
  /// of the table's sequence per 2^20 rows, the rows numbered under it.
  ///
  /// NB: one value per flush rather than one per row: taking n values is a statement that
  /// returns n rows. The positions of every flush, on every instance, stay ordered by the
  /// sequence, and so do those written before this scheme (which took one value per row).
  private func newPositions(for writes: [PostgresBatch.Write]) async throws -> [String: Double] {
    guard !writes.isEmpty else { return [:] }
    var positions: [String: Double] = [:]
    positions.reserveCapacity(writes.count)
    let block = 1 << 20
    for start in stride(from: 0, to: writes.count, by: block) {
      let rows = try await connection.query(
        PostgresQuery(unsafeSQL: "SELECT nextval('\(batch.quotedSequence)')"), logger: logger)
      var base: Int64 = 0
      for try await value in rows.decode(Int64.self) { base = value << 20 }
      for index in start..<min(start + block, writes.count) {
        positions[writes[index].id] = Double(base + Int64(index - start))
      }
    }
    return positions
  }

  /// The position each write's row takes: its own, else one taken for it, else NaN (the row
  /// keeps its place).
  private func positions(of writes: [PostgresBatch.Write], taken: [String: Double]) -> [Double] {
    writes.map { $0.position ?? taken[$0.id] ?? .nan }
  }

  /// Returns the writes that matched no row at their base version.
  private func update(
    _ writes: [PostgresBatch.Write], positions: [String: Double], written: inout [WrittenRow]
  ) async throws -> [PostgresBatch.Write] {
    let ids = writes.map(\.id)
    let bases = writes.map { versions[$0.id] ?? -1 }
    let exceptions = try await exceptions(
      """
      WITH done AS (
        UPDATE \(table) AS r SET \(aliased.map { "\($0.column) = u.\($0.alias), " }.joined())
          version = r.version + 1, updated_by = $4, updated_at = now(),
          position = CASE WHEN u.position = 'NaN' THEN r.position ELSE u.position END
        FROM UNNEST($1::text[], $2::bigint[], $3::float8[]\(arrays(from: 7)))
          WITH ORDINALITY AS u(id, base, position\(aliasList), n)
        WHERE r.id = u.id AND (r.version = u.base OR $5)
        RETURNING r.id, r.version, u.base + 1 AS expected, u.n
      ), \(logged("write", table: "$6", origin: "$4", order: "n"))
      """, ids: ids,
      binds: binds(
        ids, bases, self.positions(of: writes, taken: positions), instance,
        batch.lastWriterWins, batch.table, columns: try batch.columnArrays(of: writes)))
    written += ids.indices.compactMap { index in
      let id = ids[index]
      guard !exceptions.missed.contains(id) else { return nil }
      return WrittenRow(
        offset: writes[index].offset,
        version: exceptions.versions[id] ?? bases[index] + 1, isDeletion: false)
    }
    return writes.filter { exceptions.missed.contains($0.id) }
  }

  /// Returns the ids of the writes that found a row already there (created by another
  /// instance meanwhile): conflicts, or overwritten under last-writer-wins.
  ///
  /// NB: a plain `INSERT`, inside a savepoint, rather than `ON CONFLICT DO NOTHING`: that
  /// clause inserts each row speculatively and costs as much again as the insert itself, for a
  /// conflict that is rare. When a row is there already (a unique violation), the insert is
  /// rolled back to the savepoint and the rows found are the conflicts.
  ///
  /// NB: many rows go as several statements of ``rowsPerInsert`` rows, each handed to the
  /// connection as soon as its parameters are made, without waiting for the one before (the
  /// connection runs them in order): the parameters of one are made while the server inserts
  /// the one before. In one statement, a flush of 100,000 rows made them all first.
  private func insert(
    _ writes: [PostgresBatch.Write], positions: [String: Double], written: inout [WrittenRow]
  ) async throws -> [String] {
    guard !batch.lastWriterWins else {
      return try await overwrite(writes, positions: positions, written: &written)
    }
    try await connection.query("SAVEPOINT reduxkit_insert", logger: logger)
    var sent: [(rows: Range<Int>, result: EventLoopFuture<PostgresQueryResult>)] = []
    for start in stride(from: 0, to: writes.count, by: Self.rowsPerInsert) {
      let rows = start..<min(start + Self.rowsPerInsert, writes.count)
      let statement = try insertStatement(Array(writes[rows]), positions: positions)
      sent.append((rows, connection.query(statement, logger: logger)))
    }
    // NB: every statement waited for before anything is thrown: after a failure, the next
    // ones fail too (the transaction is aborted) and the savepoint is rolled back after them.
    var versions: [Int64] = []
    var failure: (any Error)?
    for statement in sent {
      do {
        // NB: the statement's one row.
        versions.append(try await statement.result.get().first?.decode(Int64.self) ?? 1)
      } catch {
        failure = failure ?? error
      }
    }
    if let failure {
      guard let error = failure as? PSQLError, error.serverInfo?[.sqlState] == "23505" else {
        throw failure
      }
      try await connection.query("ROLLBACK TO SAVEPOINT reduxkit_insert", logger: logger)
      let rows = try await connection.query(
        PostgresQuery(
          unsafeSQL: "SELECT id FROM \(table) WHERE id = ANY($1::text[])",
          binds: try binds(writes.map(\.id))), logger: logger)
      var existing: [String] = []
      for try await id in rows.decode(String.self) { existing.append(id) }
      // NB: a unique index of the app's own, not the primary key: the server refuses rows.
      guard !existing.isEmpty else { throw error }
      return existing
    }
    try await connection.query("RELEASE SAVEPOINT reduxkit_insert", logger: logger)
    for (statement, version) in zip(sent, versions) {
      written += writes[statement.rows].map {
        WrittenRow(offset: $0.offset, version: version, isDeletion: false)
      }
    }
    return []
  }

  /// The most rows one insert statement sends (see ``insert(_:positions:written:)``).
  static let rowsPerInsert = 16_384

  /// The statement that inserts `writes`, with their change-log row, and returns their first
  /// version.
  ///
  /// NB: the rows' first version taken in the statement (see ``firstVersion()``), not by a
  /// statement of its own before it: a round trip less.
  private func insertStatement(_ writes: [PostgresBatch.Write], positions: [String: Double])
    throws -> PostgresQuery
  {
    PostgresQuery(
      unsafeSQL: """
        WITH v AS (\(Self.nextVersion) AS version),
        logged AS (
          INSERT INTO reduxkit_change_log (table_name, op, origin, entity_ids, versions)
          SELECT $4, 'write', $2, $1::text[], array_fill(v.version, ARRAY[cardinality($1::text[])])
          FROM v
        ), done AS (
          INSERT INTO \(table) (id\(columnList), version, updated_by, position)
          SELECT u.id\(valueList), v.version, $2, u.position
          FROM v, UNNEST($1::text[], $3::float8[]\(arrays(from: 5))) AS u(id, position\(aliasList))
        )
        SELECT version FROM v
        """,
      binds: try binds(
        writes.map(\.id), instance, self.positions(of: writes, taken: positions), batch.table,
        columns: try batch.columnArrays(of: writes)))
  }

  /// The version the rows this statement makes start at: a number of the change log's
  /// sequence, above every version their ids may have had before.
  ///
  /// NB: a row made again after a deletion must not start again at 1. An instance that saw the
  /// old row at version 5 would skip the new one's versions 1 to 5 as already seen (the feed
  /// delivers a row's latest version), and a write based on the old row's version 5 would
  /// succeed on the new row's. Each version of a row was written by its own flush, which took a
  /// later number of the sequence for its log row, and the deletion's flush a later one still;
  /// the insert succeeds only once that deletion has committed. (A statement that waits for the
  /// deletion to commit could have taken its number before the old row's last writes: that
  /// needs another instance to update and delete the row while this flush runs, with the
  /// insert of an id this instance has never seen.)
  private func firstVersion() async throws -> Int64 {
    let rows = try await connection.allRows(
      PostgresQuery(unsafeSQL: Self.nextVersion), logger: logger)
    return try rows.first?.decode(Int64.self) ?? 1
  }

  /// The statement that takes a first version (``firstVersion()``).
  private static let nextVersion =
    "SELECT nextval(pg_get_serial_sequence('reduxkit_change_log', 'seq'))"

  /// Inserts under last-writer-wins: a row created by another instance meanwhile is
  /// overwritten. Returns nothing missed.
  private func overwrite(
    _ writes: [PostgresBatch.Write], positions: [String: Double], written: inout [WrittenRow]
  ) async throws -> [String] {
    let ids = writes.map(\.id)
    let version = try await firstVersion()
    let exceptions = try await exceptions(
      """
      WITH done AS (
        INSERT INTO \(table) (id\(columnList), version, updated_by, position)
        SELECT u.id\(valueList), $5, $2, u.position
        FROM UNNEST($1::text[], $3::float8[]\(arrays(from: 6))) AS u(id, position\(aliasList))
        ON CONFLICT (id) DO UPDATE SET \(batch.columns.map { "\($0) = excluded.\($0), " }.joined())
          version = \(table).version + 1,
          updated_by = excluded.updated_by, updated_at = now(), position = excluded.position
        RETURNING id, version, $5::bigint AS expected, position
      ), \(logged("write", table: "$4", origin: "$2", order: "position"))
      """, ids: ids,
      binds: binds(
        ids, instance, self.positions(of: writes, taken: positions), batch.table, version,
        columns: try batch.columnArrays(of: writes)))
    written += writes.compactMap { write in
      guard !exceptions.missed.contains(write.id) else { return nil }
      return WrittenRow(
        offset: write.offset, version: exceptions.versions[write.id] ?? version,
        isDeletion: false)
    }
    return ids.filter { exceptions.missed.contains($0) }
  }

  /// The `WITH` entry that appends the rows of `done` to the change log as one row: their ids
  /// and versions, ordered by `order`.
  private func logged(_ operation: String, table: String, origin: String, order: String)
    -> String
  {
    """
    logged AS (
      INSERT INTO reduxkit_change_log (table_name, op, origin, entity_ids, versions)
      SELECT \(table), '\(operation)', \(origin), array_agg(id ORDER BY \(order)),
        array_agg(version ORDER BY \(order))
      FROM done HAVING count(*) > 0
    )
    """
  }

  /// Runs `statement` (a `WITH` whose `done` names the rows that took effect, with their
  /// `version` and the `expected` one) and reads only the exceptions: the ids of `$1` that
  /// took no effect, and the versions that are not the expected ones.
  private func exceptions(_ statement: String, ids: [String], binds: PostgresBindings)
    async throws -> (missed: Set<String>, versions: [String: Int64])
  {
    let rows = try await connection.allRows(
      PostgresQuery(
        unsafeSQL: statement + """
          SELECT a.id, NULL::bigint FROM UNNEST($1::text[]) AS a(id)
          WHERE NOT EXISTS (SELECT 1 FROM done WHERE done.id = a.id)
          UNION ALL
          SELECT id, version FROM done WHERE version <> expected
          """, binds: binds), logger: logger)
    var missed = Set<String>()
    var versions: [String: Int64] = [:]
    for row in rows {
      let (id, version) = try row.decode((String, Int64?).self)
      if let version { versions[id] = version } else { missed.insert(id) }
    }
    return (missed, versions)
  }

  /// The server's current rows for `ids`, as conflicts.
  private func conflicts(_ ids: [String], bases: [String: Int64]) async throws
    -> [PersistenceConflict]
  {
    guard !ids.isEmpty else { return [] }
    let rows = try await connection.allRows(
      PostgresQuery(
        unsafeSQL: """
          SELECT id, version, \(batch.rowJSON) FROM \(table) AS t WHERE id = ANY($1::text[])
          """,
        binds: binds(ids)), logger: logger)
    var current: [String: (Int64, String)] = [:]
    for row in rows {
      let (id, version, json) = try row.decode((String, Int64, String).self)
      current[id] = (version, json)
    }
    return ids.map { id in
      PersistenceConflict(
        table: batch.table, id: id, expectedVersion: bases[id], currentVersion: current[id]?.0,
        currentJSON: current[id]?.1)
    }
  }

  private func binds(
    _ values: any PostgresThrowingDynamicTypeEncodable..., columns: [ColumnArray] = []
  ) throws -> PostgresBindings {
    var bindings = PostgresBindings(capacity: values.count + columns.count)
    for value in values { try bindings.append(value) }
    for column in columns { bindings.append(column) }
    return bindings
  }
}

/// The versions of one batch's rows a flush writes, by their ids' text: the base of each row
/// (a row missing is new to this instance), and the rows whose local change is dropped (a
/// conflict resolved for the server's row).
@usableFromInline
struct RowBases: Sendable {
  @usableFromInline var versions: [String: Int64] = [:]
  @usableFromInline var dropped: [String: Int64?] = [:]

  @inlinable init() {}
}
