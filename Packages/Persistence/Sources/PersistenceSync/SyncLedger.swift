import GRDB
import PersistenceSQLite

import struct Foundation.UUID

/// A replica's bookkeeping in the app's file, each part written in the transaction of what it
/// records: the remote's version of each row, the conflicts waiting for a resolution, where the
/// pull stands, and (as the change log's pin) which local changes have been pushed.
enum SyncLedger {
  static let state = "reduxkit_sync_state"
  static let versions = "reduxkit_sync_versions"
  static let conflicts = "reduxkit_sync_conflicts"
  static let unconfirmed = "reduxkit_sync_unconfirmed"
  static let held = "reduxkit_sync_held"

  /// Creates the bookkeeping, with a new name for the replica; the outbox starts at the change
  /// log's first record.
  static func create(in db: Database) throws {
    try ChangeLog.create(in: db)
    try ChangeLog.createPins(in: db)
    try db.execute(
      sql: """
        CREATE TABLE \(state) (name TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE \(versions) (
          table_name TEXT NOT NULL, entity_id TEXT NOT NULL, version INTEGER NOT NULL,
          PRIMARY KEY (table_name, entity_id)) WITHOUT ROWID;
        CREATE TABLE \(conflicts) (
          serial INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: names the conflict
          table_name TEXT NOT NULL, entity_id TEXT NOT NULL,
          expected INTEGER, current INTEGER, current_json TEXT,
          local_json TEXT, -- the local change the remote refused, kept until resolved
          kept TEXT, -- NULL: waiting; 'mine': to push over the remote's row
          edited INTEGER NOT NULL DEFAULT 0, -- the row's last local record while waiting
          UNIQUE (table_name, entity_id));
        """)
    try db.execute(
      sql: "INSERT INTO \(state) VALUES ('replica', ?)",
      arguments: [UUID().uuidString.lowercased()])
    try db.execute(
      sql: "INSERT INTO \(ChangeLog.pins) VALUES (?, 0)", arguments: [SyncReplica.origin])
  }

  static func replica(in db: Database) throws -> String {
    try String.fetchOne(db, sql: "SELECT value FROM \(state) WHERE name = 'replica'") ?? ""
  }

  static func pulled(in db: Database) throws -> String? {
    try String.fetchOne(db, sql: "SELECT value FROM \(state) WHERE name = 'pulled'")
  }

  static func setPulled(_ cursor: String, in db: Database) throws {
    try db.execute(
      sql: "INSERT OR REPLACE INTO \(state) VALUES ('pulled', ?)", arguments: [cursor])
  }

  /// The last change-log record the outbox has pushed (or passed).
  static func pushed(in db: Database) throws -> Int64 {
    try Int64.fetchOne(
      db, sql: "SELECT seq FROM \(ChangeLog.pins) WHERE reader = ?",
      arguments: [SyncReplica.origin]) ?? 0
  }

  static func setPushed(_ seq: Int64, in db: Database) throws {
    try db.execute(
      sql: "UPDATE \(ChangeLog.pins) SET seq = max(seq, ?) WHERE reader = ?",
      arguments: [seq, SyncReplica.origin])
  }

  /// The outbox's records: the local changes after the pin, oldest first.
  static func outbox(in db: Database, limit: Int) throws -> [Row] {
    try Row.fetchAll(
      db,
      sql: """
        SELECT seq, table_name, entity_id FROM \(ChangeLog.table)
        WHERE seq > ? AND origin <> ? ORDER BY seq LIMIT ?
        """, arguments: [try pushed(in: db), SyncReplica.origin, limit])
  }

  /// The remote's version of a row, as this replica last knew it.
  static func version(_ table: String, _ id: String, in db: Database) throws -> Int64? {
    try Int64.fetchOne(
      db, sql: "SELECT version FROM \(versions) WHERE table_name = ? AND entity_id = ?",
      arguments: [table, id])
  }

  static func setVersion(_ version: Int64?, _ table: String, _ id: String, in db: Database)
    throws
  {
    if let version {
      try db.execute(
        sql: "INSERT OR REPLACE INTO \(versions) VALUES (?, ?, ?)",
        arguments: [table, id, version])
    } else {
      try db.execute(
        sql: "DELETE FROM \(versions) WHERE table_name = ? AND entity_id = ?",
        arguments: [table, id])
    }
  }

  /// Adds the bookkeeping later releases need to a file made by an earlier one.
  ///
  /// NB: not a migration step: files whose bookkeeping an earlier release made have run
  /// ``SyncReplica/migration`` already.
  static func upgrade(in db: Database) throws {
    try db.execute(
      sql: """
        CREATE TABLE IF NOT EXISTS \(unconfirmed) (
          table_name TEXT NOT NULL, entity_id TEXT NOT NULL,
          PRIMARY KEY (table_name, entity_id)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS \(held) (
          table_name TEXT NOT NULL, entity_id TEXT NOT NULL,
          version INTEGER, -- NULL: a deletion a replay found, at a version not known
          json TEXT, writer TEXT NOT NULL,
          PRIMARY KEY (table_name, entity_id)) WITHOUT ROWID;
        """)
  }

  // MARK: - Remote rows a local change held back

  /// Keeps the newest remote change to a row a local change held back: if the push of the
  /// local change is answered by an earlier outcome (a retried key), the remote is ahead.
  static func hold(_ row: SyncedRow, in db: Database) throws {
    try db.execute(
      sql: "INSERT OR REPLACE INTO \(held) VALUES (?, ?, ?, ?, ?)",
      arguments: [row.table, row.id, row.version == .max ? nil : row.version, row.json, row.writer])
  }

  /// The remote change held back for a row, if any.
  static func heldRow(_ table: String, _ id: String, in db: Database) throws -> SyncedRow? {
    try Row.fetchOne(
      db, sql: "SELECT version, json, writer FROM \(held) WHERE table_name = ? AND entity_id = ?",
      arguments: [table, id]
    ).map {
      SyncedRow(
        table: table, id: id, json: $0[1], version: $0[0] ?? .max, writer: $0[2])
    }
  }

  static func release(_ table: String, _ id: String, in db: Database) throws {
    try db.execute(
      sql: "DELETE FROM \(held) WHERE table_name = ? AND entity_id = ?", arguments: [table, id])
  }

  /// Asks the next pull to read the remote from its start, as a replay.
  static func requestReplay(in db: Database) throws {
    try startReplay(in: db)
    try db.execute(sql: "DELETE FROM \(state) WHERE name = 'pulled'")
  }

  // MARK: - A replay (a remote that starts over)

  /// Starts a replay: every row the replica has from the remote is unconfirmed until the
  /// replay brings it.
  static func startReplay(in db: Database) throws {
    try db.execute(
      sql: """
        DELETE FROM \(unconfirmed);
        INSERT INTO \(unconfirmed) SELECT table_name, entity_id FROM \(versions);
        INSERT OR REPLACE INTO \(state) VALUES ('replaying', '1');
        """)
  }

  static func isReplaying(in db: Database) throws -> Bool {
    try Bool.fetchOne(db, sql: "SELECT 1 FROM \(state) WHERE name = 'replaying'") ?? false
  }

  /// Notes that the replay brought a row.
  static func confirm(_ table: String, _ id: String, in db: Database) throws {
    try db.execute(
      sql: "DELETE FROM \(unconfirmed) WHERE table_name = ? AND entity_id = ?",
      arguments: [table, id])
  }

  /// The rows the replay has not brought: the remote deleted them.
  static func unconfirmedRows(in db: Database) throws -> [(table: String, id: String)] {
    try Row.fetchAll(db, sql: "SELECT table_name, entity_id FROM \(unconfirmed)").map {
      (table: $0[0], id: $0[1])
    }
  }

  static func endReplay(in db: Database) throws {
    try db.execute(
      sql: """
        DELETE FROM \(unconfirmed);
        DELETE FROM \(state) WHERE name = 'replaying';
        """)
  }
}
