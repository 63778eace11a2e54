import Logging
import PostgresNIO

/// What one flush's transaction did so far: the rows it wrote (for the change log and the
/// versions) and the conflicts it met.
struct FlushOutcome: Sendable {
  struct Change: Sendable {
    let table: String
    let id: String
    let version: Int64
    let isDeletion: Bool
  }

  var log: [Change] = []
  var conflicts: [PersistenceConflict] = []

  /// Appends one change-log row per change, in the flush's transaction.
  func appendLog(on connection: PostgresConnection, origin: String, logger: Logger) async throws {
    guard !log.isEmpty else { return }
    let tables = log.map(\.table)
    let ids = log.map(\.id)
    let versions = log.map(\.version)
    let operations = log.map { $0.isDeletion ? "delete" : "write" }
    try await connection.query(
      """
      INSERT INTO reduxkit_changes (table_name, entity_id, version, op, origin)
      SELECT u.t, u.id, u.v, u.op, \(origin)
      FROM UNNEST(\(tables)::text[], \(ids)::text[], \(versions)::bigint[], \(operations)::text[])
        WITH ORDINALITY AS u(t, id, v, op, n)
      ORDER BY u.n
      """, logger: logger)
    // NB: delivered at commit, to the instances listening: a wake-up only (the feed reads
    // the log), so the payload is just the writer's name.
    try await connection.query(
      "SELECT pg_notify(\(ChangeFeed.channel), \(origin))", logger: logger)
  }
}

/// Writes one writer's batch inside a flush's transaction: versioned deletes, versioned
/// updates, inserts of rows new to this instance, each as one statement over arrays
/// (`UNNEST`), with `RETURNING` telling which rows took effect; the others are conflicts.
struct FlushWriter {
  let batch: PostgresBatch
  let connection: PostgresConnection
  let instance: String
  let logger: Logger
  /// The version each change was made against, and the changes dropped.
  let bases: VersionBook.FlushBases

  private var versions: [String: Int64] { bases.versions }
  private var dropped: [String: Int64?] { bases.dropped }

  private var table: String { batch.quotedName }

  func write(into outcome: inout FlushOutcome) async throws {
    try await delete(into: &outcome)
    try await upsert(into: &outcome)
  }

  private func delete(into outcome: inout FlushOutcome) async throws {
    let ids = batch.deletions.filter { dropped[$0] == nil }
    guard !ids.isEmpty else { return }
    let bases = ids.map { versions[$0] ?? -1 }
    let rows = try await connection.query(
      PostgresQuery(
        unsafeSQL: """
          DELETE FROM \(table) AS r USING UNNEST($1::text[], $2::bigint[]) AS d(id, base)
          WHERE r.id = d.id AND (r.version = d.base OR $3)
          RETURNING r.id, r.version + 1
          """,
        binds: binds(ids, bases, batch.lastWriterWins)), logger: logger)
    var deleted = Set<String>()
    for try await (id, version) in rows.decode((String, Int64).self) {
      deleted.insert(id)
      outcome.log.append(.init(table: batch.table, id: id, version: version, isDeletion: true))
    }
    // NB: a row already gone is no conflict: both instances wanted it deleted.
    let missed = ids.filter { !deleted.contains($0) }
    outcome.conflicts += try await conflicts(missed, bases: versions).filter {
      $0.currentVersion != nil
    }
  }

  private func upsert(into outcome: inout FlushOutcome) async throws {
    var updates: [PostgresBatch.Write] = []
    var inserts: [PostgresBatch.Write] = []
    for write in batch.writes where dropped[write.id] == nil {
      if versions[write.id] != nil { updates.append(write) } else { inserts.append(write) }
    }
    var missed: [String] = []
    // NB: positions are taken here, in the batch's order (rows placed last after the others),
    // rather than by `nextval` inside the statements, whose order of evaluation is not defined.
    var positions = try await newPositions(
      for: batch.writes.filter {
        dropped[$0.id] == nil && (versions[$0.id] == nil || $0.placedLast)
      })
    if !updates.isEmpty {
      let updated = try await update(updates, positions: positions, into: &outcome)
      let unmatched = updates.filter { !updated.contains($0.id) }
      if batch.lastWriterWins {
        // Deleted meanwhile: written again, at the end.
        let more = try await newPositions(for: unmatched.filter { positions[$0.id] == nil })
        positions.merge(more) { old, _ in old }
        inserts += unmatched
      } else {
        missed += unmatched.map(\.id)
      }
    }
    if !inserts.isEmpty {
      let inserted = try await insert(inserts, positions: positions, into: &outcome)
      missed += inserts.filter { !inserted.contains($0.id) }.map(\.id)
    }
    outcome.conflicts += try await conflicts(missed, bases: versions)
  }

  /// Takes one position per write from the table's sequence, in the writes' order.
  private func newPositions(for writes: [PostgresBatch.Write]) async throws -> [String: Int64] {
    guard !writes.isEmpty else { return [:] }
    let rows = try await connection.query(
      PostgresQuery(
        unsafeSQL: "SELECT nextval('\(batch.quotedSequence)') FROM generate_series(1, $1)",
        binds: binds(writes.count)), logger: logger)
    var positions: [String: Int64] = [:]
    var index = 0
    for try await position in rows.decode(Int64.self) {
      positions[writes[index].id] = position
      index += 1
    }
    return positions
  }

  private func update(
    _ writes: [PostgresBatch.Write], positions: [String: Int64], into outcome: inout FlushOutcome
  ) async throws -> Set<String> {
    let rows = try await connection.query(
      PostgresQuery(
        unsafeSQL: """
          UPDATE \(table) AS r SET data = u.data::jsonb, version = r.version + 1,
            updated_by = $5, updated_at = now(),
            position = CASE WHEN u.position < 0 THEN r.position ELSE u.position END
          FROM UNNEST($1::text[], $2::text[], $3::bigint[], $4::bigint[])
            AS u(id, data, base, position)
          WHERE r.id = u.id AND (r.version = u.base OR $6)
          RETURNING r.id, r.version
          """,
        binds: binds(
          writes.map(\.id), try json(of: writes), writes.map { versions[$0.id] ?? -1 },
          writes.map { write in write.placedLast ? positions[write.id] ?? -1 : -1 }, instance,
          batch.lastWriterWins)),
      logger: logger)
    return try await record(rows, into: &outcome)
  }

  private func insert(
    _ writes: [PostgresBatch.Write], positions: [String: Int64], into outcome: inout FlushOutcome
  ) async throws -> Set<String> {
    // NB: a row another instance created meanwhile is a conflict, or overwritten under
    // last-writer-wins.
    let onConflict =
      batch.lastWriterWins
      ? """
      DO UPDATE SET data = excluded.data, version = \(table).version + 1,
        updated_by = excluded.updated_by, updated_at = now(),
        position = excluded.position
      """
      : "DO NOTHING"
    let rows = try await connection.query(
      PostgresQuery(
        unsafeSQL: """
          INSERT INTO \(table) (id, data, version, updated_by, position)
          SELECT u.id, u.data::jsonb, 1, $3, u.position
          FROM UNNEST($1::text[], $2::text[], $4::bigint[]) AS u(id, data, position)
          ON CONFLICT (id) \(onConflict)
          RETURNING id, version
          """,
        binds: binds(
          writes.map(\.id), try json(of: writes), instance,
          writes.map { positions[$0.id] ?? -1 })),
      logger: logger)
    return try await record(rows, into: &outcome)
  }

  private func record(
    _ rows: PostgresRowSequence, into outcome: inout FlushOutcome
  ) async throws -> Set<String> {
    var written = Set<String>()
    for try await (id, version) in rows.decode((String, Int64).self) {
      written.insert(id)
      outcome.log.append(.init(table: batch.table, id: id, version: version, isDeletion: false))
    }
    return written
  }

  /// The server's current rows for `ids`, as conflicts.
  private func conflicts(_ ids: [String], bases: [String: Int64]) async throws
    -> [PersistenceConflict]
  {
    guard !ids.isEmpty else { return [] }
    let rows = try await connection.query(
      PostgresQuery(
        unsafeSQL: "SELECT id, version, data::text FROM \(table) WHERE id = ANY($1::text[])",
        binds: binds(ids)), logger: logger)
    var current: [String: (Int64, String)] = [:]
    for try await (id, version, json) in rows.decode((String, Int64, String).self) {
      current[id] = (version, json)
    }
    return ids.map { id in
      PersistenceConflict(
        table: batch.table, id: id, expectedVersion: bases[id], currentVersion: current[id]?.0,
        currentJSON: current[id]?.1)
    }
  }

  private func json(of writes: [PostgresBatch.Write]) throws -> [String] {
    try writes.map { write in
      do {
        return try write.json.get()
      } catch {
        throw PostgresBackendError.unencodable(table: batch.table, id: write.id, underlying: error)
      }
    }
  }

  private func binds(_ values: any PostgresEncodable...) throws -> PostgresBindings {
    var bindings = PostgresBindings(capacity: values.count)
    for value in values { try bindings.append(value) }
    return bindings
  }
}
