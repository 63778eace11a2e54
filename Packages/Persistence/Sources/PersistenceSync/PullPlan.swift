import GRDB
import Persistence
import PersistenceSQLite

/// What a pulled page does to the file: each row's last change in the page is written, unless
/// the replica knows that version already (its own push, come back), a local change to the row
/// waits to be pushed (the push reports the conflict), or a conflict on it waits (it shows the
/// remote's newest row instead).
struct PullPlan: Sendable {
  /// A local change was logged between the plan and its write: the plan is made again.
  struct Raced: Error {}

  /// The rows to write, by table.
  private(set) var writes: [String: [SyncedRow]] = [:]
  /// The rows written, as keys.
  private(set) var writtenKeys = Set<String>()
  /// The remote's newest rows of the conflicts waiting.
  private var conflictUpdates: [SyncedRow] = []
  /// The rows a local change holds back.
  private var heldBack: [SyncedRow] = []
  /// The rows the page holds (not deletions), by table and id: a replay confirms them.
  private var held: [(table: String, id: String)] = []

  init(_ page: SyncPage, tables: [String: SyncedTable], in db: Database) throws {
    var latest: [SyncedRow] = []
    var offsets: [String: Int] = [:]
    for row in page.rows where tables[row.table] != nil {
      let key = Self.key(row.table, row.id)
      if let offset = offsets[key] {
        latest[offset] = row
      } else {
        offsets[key] = latest.count
        latest.append(row)
      }
    }
    let pending = try Self.pendingRows(tables: tables, in: db)
    let conflicted = Set(
      try SyncLedger.conflicts(in: db).map { Self.key($0.conflict.table, $0.conflict.id) })
    held = latest.filter { $0.json != nil }.map { ($0.table, $0.id) }
    for row in latest {
      let key = Self.key(row.table, row.id)
      if let known = try SyncLedger.version(row.table, row.id, in: db), known >= row.version {
        continue
      }
      if conflicted.contains(key) {
        conflictUpdates.append(row)
      } else if pending.contains(key) {
        heldBack.append(row)
      } else {
        writes[row.table, default: []].append(row)
        writtenKeys.insert(key)
      }
    }
  }

  /// The rows with a local change waiting to be pushed.
  static func pendingRows(tables: [String: SyncedTable], in db: Database) throws -> Set<String> {
    var rows = Set<String>()
    for record in try SyncLedger.outbox(in: db, limit: .max) {
      let table: String = record[1]
      guard let synced = tables[table], let id = synced.id(record[2]) else { continue }
      rows.insert(key(table, id))
    }
    return rows
  }

  /// Records the versions written (but of the rows `refused`), the conflicts' newest rows, the
  /// rows a replay brought, and the cursor after the page.
  func record(cursor: String, skipping refused: Set<String>, in db: Database) throws {
    if try SyncLedger.isReplaying(in: db) {
      for row in held { try SyncLedger.confirm(row.table, row.id, in: db) }
    }
    for (table, rows) in writes {
      for row in rows where !refused.contains(Self.key(table, row.id)) {
        try SyncLedger.setVersion(row.json == nil ? nil : row.version, table, row.id, in: db)
      }
    }
    for row in heldBack { try SyncLedger.hold(row, in: db) }
    for row in conflictUpdates {
      try SyncLedger.update(
        row.table, row.id, current: row.json == nil ? nil : row.version, json: row.json, in: db)
    }
    try SyncLedger.setPulled(cursor, in: db)
  }

  static func key(_ table: String, _ id: String) -> String { "\(table)\u{0}\(id)" }
}
