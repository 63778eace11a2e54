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
  /// The remote changes a local change held back from a pull, by the offset of the change.
  private var held: [Int: SyncedRow] = [:]

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
      if let held = try SyncLedger.heldRow(row.table, row.id, in: db) {
        self.held[changes.count] = held
      }
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

  /// The remote changes held back from pulls that are newer than the changes the outcomes say
  /// were applied, and whether a held-back deletion of a version not known asks for a replay.
  ///
  /// NB: a change applied now is applied on the remote's latest row, so what a pull held back
  /// is older. But a retried key is answered by its first outcome, and the remote may have
  /// moved on since: a held-back change by another writer (or above the version applied) is
  /// the remote's row now, which the pull's cursor has passed.
  func overtaken(by outcomes: [SyncOutcome], replica: String) -> (
    rows: [SyncedRow], needsReplay: Bool
  ) {
    var rows: [SyncedRow] = []
    var needsReplay = false
    for (offset, row) in held.sorted(by: { $0.key < $1.key }) {
      guard case .applied(let version) = outcomes[offset] else { continue }
      if row.version == .max {
        needsReplay = true
      } else if version.map({ row.version > $0 }) ?? (row.writer != replica) {
        rows.append(row)
      }
    }
    return (rows, needsReplay)
  }

  /// Records what the remote did with each change (and the remote rows found newer than the
  /// changes applied, written in the same transaction), and moves the pin past the records
  /// read.
  func record(
    _ outcomes: [SyncOutcome], overtaken: [SyncedRow], requestingReplay: Bool, in db: Database
  ) throws {
    for (change, (outcome, resolves)) in zip(changes, zip(outcomes, resolving)) {
      try SyncLedger.release(change.table, change.id, in: db)
      switch outcome {
      case .applied(let version):
        try SyncLedger.setVersion(version, change.table, change.id, in: db)
        if resolves { try SyncLedger.removeConflict(change.table, change.id, in: db) }
      case .conflict(let conflict):
        try SyncLedger.record(conflict, local: change.json, in: db)
      }
    }
    for row in overtaken {
      try SyncLedger.setVersion(row.json == nil ? nil : row.version, row.table, row.id, in: db)
    }
    if requestingReplay { try SyncLedger.requestReplay(in: db) }
    for row in heldBack { try SyncLedger.edited(row.table, row.id, at: row.seq, in: db) }
    try SyncLedger.setPushed(through, in: db)
  }

  /// The rows of `keys` edited here after the records this push read.
  func editedSince(_ keys: Set<String>, tables: [String: SyncedTable], in db: Database) throws
    -> Bool
  {
    let records = try Row.fetchAll(
      db,
      sql: """
        SELECT table_name, entity_id FROM \(ChangeLog.table) WHERE seq > ? AND origin <> ?
        """, arguments: [through, SyncReplica.origin])
    return records.contains { record in
      let table: String = record[0]
      guard let id = tables[table]?.id(record[1]) else { return false }
      return keys.contains(PullPlan.key(table, id))
    }
  }
}
