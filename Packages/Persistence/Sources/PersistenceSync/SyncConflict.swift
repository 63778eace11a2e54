import GRDB
public import Persistence

/// A local change the remote refused because another writer changed, deleted or created the row
/// first: kept in the file, with the remote's row, until the app resolves it
/// (``SyncReplica/resolve(_:keeping:)``). Until then the row is neither pushed nor overwritten
/// by a pull: the local value stays where the user sees it.
public struct SyncConflict: Sendable, Equatable {
  /// The remote's refusal, as every backend reports a conflict: the remote's version and JSON.
  public let conflict: PersistenceConflict
  /// The local row as it was pushed (`nil`: a deletion): nothing typed is lost.
  public let localJSON: String?
  /// `.mine` once resolved for the local row and waiting to be pushed; `nil` while waiting for
  /// a resolution.
  public let resolution: ConflictResolution?
  /// The last change-log record of a local edit of the row made while the conflict waited:
  /// part of the key its `.mine` push carries, so that an edit made after a lost reply is sent.
  let edited: Int64
  /// Names this conflict among every conflict the file has recorded.
  let serial: Int64
}

extension SyncLedger {
  static func conflicts(in db: Database) throws -> [SyncConflict] {
    try Row.fetchAll(
      db,
      sql: """
        SELECT table_name, entity_id, expected, current, current_json, local_json, kept, edited,
          serial
        FROM \(conflicts) ORDER BY serial
        """
    ).map { row in
      SyncConflict(
        conflict: PersistenceConflict(
          table: row[0], id: row[1], expectedVersion: row[2], currentVersion: row[3],
          currentJSON: row[4]),
        localJSON: row[5], resolution: (row[6] as String?) == "mine" ? .mine : nil,
        edited: row[7], serial: row[8])
    }
  }

  static func conflict(_ table: String, _ id: String, in db: Database) throws -> SyncConflict? {
    try conflicts(in: db).first { $0.conflict.table == table && $0.conflict.id == id }
  }

  /// Records a refusal; the local change stays in the file.
  static func record(_ conflict: PersistenceConflict, local json: String?, in db: Database) throws {
    try db.execute(
      sql: """
        INSERT OR REPLACE INTO \(conflicts)
          (table_name, entity_id, expected, current, current_json, local_json)
        VALUES (?, ?, ?, ?, ?, ?)
        """,
      arguments: [
        conflict.table, conflict.id, conflict.expectedVersion, conflict.currentVersion,
        conflict.currentJSON, json,
      ])
  }

  /// The remote's row changed again while a conflict on it waits: the conflict shows the newest.
  static func update(_ table: String, _ id: String, current: Int64?, json: String?, in db: Database)
    throws
  {
    try db.execute(
      sql: """
        UPDATE \(conflicts) SET current = ?, current_json = ?
        WHERE table_name = ? AND entity_id = ?
        """, arguments: [current, json, table, id])
  }

  /// The row was edited here while the conflict waited, at log record `seq`.
  static func edited(_ table: String, _ id: String, at seq: Int64, in db: Database) throws {
    try db.execute(
      sql: """
        UPDATE \(conflicts) SET edited = max(edited, ?) WHERE table_name = ? AND entity_id = ?
        """, arguments: [seq, table, id])
  }

  static func keepMine(_ table: String, _ id: String, in db: Database) throws {
    try db.execute(
      sql: "UPDATE \(conflicts) SET kept = 'mine' WHERE table_name = ? AND entity_id = ?",
      arguments: [table, id])
  }

  static func removeConflict(_ table: String, _ id: String, in db: Database) throws {
    try db.execute(
      sql: "DELETE FROM \(conflicts) WHERE table_name = ? AND entity_id = ?",
      arguments: [table, id])
  }
}
