import GRDB
import Persistence
import PersistenceSQLite

/// One push's worth of the outbox: the local changes after the pin, one per row at its latest
/// value, then the conflicts resolved `.mine`.
struct Outbox: Sendable {
  /// The pin when read: the last record pushed before.
  let pushed: Int64
  /// The last record read: the pin once these changes are recorded.
  let through: Int64
  /// Whether the outbox held no more records than these.
  let isComplete: Bool
  private(set) var changes: [SyncChange] = []
  /// Whether each change pushes a conflict resolved `.mine`.
  private var resolving: [Bool] = []
  /// The rows with a conflict waiting that were edited here, at their last record read.
  private var heldBack: [(table: String, id: String, seq: Int64)] = []

  /// Reads at most `limit` records after the pin.
  init(in db: Database, tables: [String: SyncedTable], replica: String, limit: Int) throws {
    pushed = try SyncLedger.pushed(in: db)
    let records = try SyncLedger.outbox(in: db, limit: limit)
    through = records.last.map { $0[0] } ?? pushed
    isComplete = records.count < limit
    // NB: each row once, under its latest record: the key of a change names the edit it
    // carries, so a retry of the same push sends the same keys.
    var latest: [(seq: Int64, table: String, id: String)] = []
    var offsets: [String: Int] = [:]
    for record in records {
      let table: String = record[1]
      guard let synced = tables[table], let id = synced.id(record[2]) else { continue }
      let row = (seq: record[0] as Int64, table: table, id: id)
      let key = "\(table)\u{0}\(id)"
      if let offset = offsets[key] {
        latest[offset] = row
      } else {
        offsets[key] = latest.count
        latest.append(row)
      }
    }
    let conflicts = try SyncLedger.conflicts(in: db)
    // NB: a row with a conflict waiting is not pushed: the local value stays until resolved.
    let conflicted = Set(conflicts.map { "\($0.conflict.table)\u{0}\($0.conflict.id)" })
    for row in latest {
      guard !conflicted.contains("\(row.table)\u{0}\(row.id)") else {
        heldBack.append((table: row.table, id: row.id, seq: row.seq))
        continue
      }
      guard let synced = tables[row.table] else { continue }
      let json = try synced.json(db, row.id)
      let base = try SyncLedger.version(row.table, row.id, in: db)
      // NB: a row made and deleted here with no version known is sent too: its making may
      // have been applied by a push whose reply was lost (the remote deletes it then, as its
      // own), or never (the remote answers that both want it gone).
      changes.append(
        SyncChange(
          key: "\(replica):\(row.seq)", table: row.table, id: row.id, json: json,
          baseVersion: base))
      resolving.append(false)
    }
    guard isComplete else { return }
    for waiting in conflicts where waiting.resolution == .mine {
      let conflict = waiting.conflict
      guard let synced = tables[conflict.table] else { continue }
      // NB: the key names the conflict and the last local edit it carries: a retry sends the
      // same key, an edit made since a lost reply a new one.
      let edited = heldBack.last { $0.table == conflict.table && $0.id == conflict.id }?.seq
      let edit = max(waiting.edited, edited ?? 0)
      changes.append(
        SyncChange(
          key: "\(replica):conflict-\(waiting.serial):\(edit)",
          table: conflict.table, id: conflict.id, json: try synced.json(db, conflict.id),
          baseVersion: conflict.currentVersion))
      resolving.append(true)
    }
  }

  /// Records what the remote did with each change, and moves the pin past the records read.
  func record(_ outcomes: [SyncOutcome], in db: Database) throws {
    for (change, (outcome, resolves)) in zip(changes, zip(outcomes, resolving)) {
      switch outcome {
      case .applied(let version):
        try SyncLedger.setVersion(version, change.table, change.id, in: db)
        if resolves { try SyncLedger.removeConflict(change.table, change.id, in: db) }
      case .conflict(let conflict):
        try SyncLedger.record(conflict, local: change.json, in: db)
      }
    }
    for row in heldBack { try SyncLedger.edited(row.table, row.id, at: row.seq, in: db) }
    try SyncLedger.setPushed(through, in: db)
  }
}
