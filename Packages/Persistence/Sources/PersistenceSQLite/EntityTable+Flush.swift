import EntityTracking
public import GRDB
import GRDBSQLite
public import Persistence

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
    var rows = RowWriter(table: self, keys: ids, columns: columns, db: db, flush: flush)
    defer {
      let (written, dropped) = (rows.written, bases.dropped)
      flush.committed.append { work.committed(versions, written, ids, dropped) }
    }

    for offset in changes.deletions.indices {
      let id = changes.deletions[offset]
      guard bases.dropped.isEmpty || bases.dropped[id] == nil else { continue }
      try rows.delete(offset, base: bases.versions[offset], flush: &flush)
    }
    guard !changes.writes.isEmpty else { return try rows.finish(flush: &flush) }
    let writeBase = changes.deletions.count
    let hasPositions = !changes.positions.isEmpty
    let encoder = ColumnEncoder(columns: columns.map(\.name))
    for offset in changes.writes.indices {
      let entity = changes.writes[offset]
      if !bases.dropped.isEmpty, bases.dropped[entity.id] != nil { continue }
      do {
        try encoder.encode(entity)
      } catch {
        try rows.insertWaiting(flush: &flush)
        flush.rejected.append(
          RejectedWrite(
            batch: flush.batch, table: name, id: "\(entity.id)",
            reason: .unencodable("\(error)")))
        continue
      }
      try rows.write(
        writeBase + offset, values: encoder.values, base: bases.versions[writeBase + offset],
        position: hasPositions ? changes.positions[offset] : nil, flush: &flush)
    }
    try rows.finish(flush: &flush)
  }
}
