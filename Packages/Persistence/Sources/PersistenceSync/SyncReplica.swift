import GRDB
public import Logging
public import Persistence
public import PersistenceSQLite

/// Keeps tables of the app's SQLite file in step with a ``SyncRemote``, offline first: the app
/// reads and writes its file as always (its `PersistenceMiddleware`, its `SQLiteChangeFeed`),
/// and the replica sends the local changes when the remote can be reached and writes the
/// remote's into the file.
///
/// ```swift
/// let cards = EntityTable<Card>("cards")
/// let migrations = [SQLiteMigration("v1") { try cards.create(in: $0) }, SyncReplica.migration]
/// let database = try SQLiteDatabase(path: path, migrations: migrations)  // the app's
/// let replica = try SyncReplica(
///   path: path, migrations: migrations, tables: [SyncedTable(cards)], remote: server)
/// let report = try await replica.sync()  // when online: push, then pull
/// ```
///
/// ## Guarantees
/// - **The outbox is the file's change log.** Every local write is logged in the transaction
///   that makes it, so a change the app's flush acknowledged is in the outbox, through a crash.
///   The log keeps the records the replica has not pushed (its pin), however old.
/// - **A push is applied once.** Each change carries a key made of the replica's name and its
///   log record; a push retried after a lost reply (or after a kill) sends the same keys, and
///   the remote answers what it did the first time.
/// - **Nothing is overwritten silently, nothing typed is lost.** A change made on a stale
///   version comes back as a ``/Persistence/PersistenceConflict``, kept in the file with the
///   local row (``SyncConflict``) until the app resolves it (``resolve(_:keeping:)``): `.mine`
///   pushes the local row over the remote's, `.theirs` writes the remote's into the file.
/// - **A pull skips nothing and writes nothing back.** The remote's changes after the stored
///   cursor are written into the file with the cursor, in one transaction, under the replica's
///   name in the change log (``origin``): the app's change feed delivers them as
///   `RemoteChanges` (so query invalidation follows them as it follows local ones), and they
///   are never pushed. A row with a local change not pushed yet, or a conflict waiting, keeps
///   its local value: the push reports the conflict. A remote that starts over (it forgot the
///   cursor) replays its rows; those the replica had and the replay lacks are deleted.
public actor SyncReplica {
  /// The replica's name in the file's change log.
  public static let origin = "reduxkit-sync"

  /// The step that creates the replica's bookkeeping: list it in the app's migrations.
  public static let migration = SQLiteMigration("reduxkit-sync-v1") { db in
    try SyncLedger.create(in: db)
  }

  /// This replica's name on the remote, made once per file.
  public nonisolated let replica: String
  private let database: SQLiteDatabase
  private let tables: [String: SyncedTable]
  private let remote: any SyncRemote
  private let batchSize: Int
  private let logger: Logger

  /// Opens the replica of the file at `path`.
  ///
  /// - Parameters:
  ///   - path: The app's database file.
  ///   - migrations: The app's migrations, ``migration`` among them.
  ///   - tables: The tables to keep in step.
  ///   - remote: The other side.
  ///   - batchSize: The most changes a push sends, or a pull asks for, at once.
  ///   - logger: Where the rows that cannot be taken are reported.
  /// - Throws: ``SyncError/database(_:)`` when the file cannot be opened.
  public init(
    path: String, migrations: [SQLiteMigration], tables: [SyncedTable], remote: any SyncRemote,
    batchSize: Int = 500, logger: Logger = Logger(label: "ReduxKit.PersistenceSync")
  ) throws(SyncError) {
    do {
      database = try SQLiteDatabase(
        path: path, migrations: migrations, verifiesIntegrity: false, instance: Self.origin)
      try database.writer.write { db in try SyncLedger.upgrade(in: db) }
      replica = try database.writer.read { db in try SyncLedger.replica(in: db) }
    } catch {
      throw .database(SQLiteDatabaseError(error, path: path))
    }
    self.tables = Dictionary(tables.map { ($0.name, $0) }) { first, _ in first }
    self.remote = remote
    self.batchSize = max(batchSize, 1)
    self.logger = logger
  }

  /// Closes the replica's connection to the file.
  public func close() throws(SyncError) {
    do {
      try database.close()
    } catch {
      throw .database(error)
    }
  }

  /// Pushes every local change, then pulls every remote one.
  ///
  /// - Returns: What was sent, refused and received.
  /// - Throws: ``SyncError/remote(_:)`` when the remote cannot be reached (what was done before
  ///   stands), ``SyncError/database(_:)``.
  @discardableResult
  public func sync() async throws(SyncError) -> SyncReport {
    var report = try await push()
    report.pulled = try await pull()
    return report
  }

  /// The local changes not pushed yet (rows, not edits), and the conflicts resolved `.mine`
  /// waiting to be pushed: what a status line shows as "N changes to send".
  public func pendingChanges() async throws(SyncError) -> Int {
    let tables = tables
    return try await read { db in
      var rows = Set<String>()
      for record in try SyncLedger.outbox(in: db, limit: .max) {
        let table: String = record[1]
        guard let synced = tables[table], let id = synced.id(record[2]) else { continue }
        rows.insert("\(table)\u{0}\(id)")
      }
      return rows.count + (try SyncLedger.conflicts(in: db).count { $0.resolution == .mine })
    }
  }

  /// The conflicts the remote reported, oldest first, until resolved.
  public func conflicts() async throws(SyncError) -> [SyncConflict] {
    try await read { db in try SyncLedger.conflicts(in: db) }
  }

  /// Resolves a conflict: `.mine` pushes the local row over the remote's at the next push;
  /// `.theirs` writes the remote's row (or its deletion) into the file now, where the app's
  /// change feed delivers it.
  ///
  /// - Throws: ``SyncError/noSuchConflict(table:id:)``, ``SyncError/database(_:)``.
  public func resolve(_ conflict: PersistenceConflict, keeping resolution: ConflictResolution)
    async throws(SyncError)
  {
    let (table, id) = (conflict.table, conflict.id)
    guard let waiting = try await read({ db in try SyncLedger.conflict(table, id, in: db) }),
      let synced = tables[table]
    else { throw .noSuchConflict(table: table, id: id) }
    switch resolution {
    case .mine:
      try await commit([SQLiteBatch { db in try SyncLedger.keepMine(table, id, in: db) }])
    case .theirs:
      let remote = waiting.conflict
      let (batch, refused) = synced.write([(id, remote.currentJSON)])
      if let (_, error) = refused.first {
        throw .database(SQLiteDatabaseError(error, path: database.path))
      }
      try await commit([
        batch,
        SQLiteBatch { db in
          try SyncLedger.setVersion(remote.currentVersion, table, id, in: db)
          try SyncLedger.removeConflict(table, id, in: db)
        },
      ])
    }
  }

  // MARK: - Push

  /// Sends the outbox, a batch at a time, and records each outcome with the outbox's new
  /// position in one transaction.
  ///
  /// - Returns: What was applied and refused.
  @discardableResult
  public func push() async throws(SyncError) -> SyncReport {
    var report = SyncReport()
    while true {
      let (tables, replica, limit) = (tables, replica, batchSize)
      let outbox = try await read { db in
        try Outbox(in: db, tables: tables, replica: replica, limit: limit)
      }
      if !outbox.changes.isEmpty {
        let outcomes: [SyncOutcome]
        do {
          outcomes = try await remote.push(outbox.changes, from: replica)
        } catch {
          throw .remote(error)
        }
        guard outcomes.count == outbox.changes.count else {
          throw .malformedAnswer(
            "\(outcomes.count) outcomes for a push of \(outbox.changes.count) changes")
        }
        for outcome in outcomes {
          switch outcome {
          case .applied: report.pushed += 1
          case .conflict(let conflict): report.conflicts.append(conflict)
          }
        }
        try await record(outcomes, of: outbox)
      } else if outbox.through > outbox.pushed {
        try await commit([
          SQLiteBatch { db in try SyncLedger.setPushed(outbox.through, in: db) }
        ])
      }
      if outbox.isComplete { return report }
    }
  }

  /// Records a push's outcomes, and writes the remote rows found newer than the changes
  /// applied (but over a local edit made since the push was read).
  private func record(_ outcomes: [SyncOutcome], of outbox: Outbox) async throws(SyncError) {
    let tables = tables
    let found = outbox.overtaken(by: outcomes, replica: replica)
    var overtaken = found.rows
    while true {
      let rows = overtaken
      var batches: [SQLiteBatch] = []
      if !rows.isEmpty {
        let keys = Set(rows.map { PullPlan.key($0.table, $0.id) })
        batches.append(
          SQLiteBatch { db in
            if try outbox.editedSince(keys, tables: tables, in: db) { throw PullPlan.Raced() }
          })
        for (table, taken) in Dictionary(grouping: rows, by: \.table) {
          guard let synced = tables[table] else { continue }
          let (batch, refused) = synced.write(taken.map { ($0.id, $0.json) })
          for (id, error) in refused {
            logger.error(
              "sync: a remote row cannot be stored here; skipped",
              metadata: ["table": "\(table)", "id": "\(id)", "error": "\(error)"])
          }
          batches.append(batch)
        }
      }
      batches.append(
        SQLiteBatch { db in
          try outbox.record(outcomes, overtaken: rows, requestingReplay: found.needsReplay, in: db)
        })
      do {
        try await database.commit(batches)
        return
      } catch is PullPlan.Raced {
        // NB: edited since: the edit's push will meet the remote's row as a conflict.
        overtaken = []
      } catch {
        throw .database(SQLiteDatabaseError(error, path: database.path))
      }
    }
  }

  // MARK: - Pull

  /// Receives the remote's changes after the stored cursor, a page at a time, and writes each
  /// page into the file with the cursor after it.
  ///
  /// - Returns: The rows written into the file.
  @discardableResult
  public func pull() async throws(SyncError) -> Int {
    var written = 0
    while true {
      let cursor = try await read { db in try SyncLedger.pulled(in: db) }
      let page: SyncPage
      do {
        page = try await remote.pull(after: cursor, limit: batchSize)
      } catch {
        throw .remote(error)
      }
      // NB: a page whose cursor does not move would be asked for again and again.
      guard page.rows.isEmpty || page.cursor != cursor else {
        throw .malformedAnswer("a page of \(page.rows.count) changes ends where it began")
      }
      // NB: a pull from the start is a replay too: the replica may know rows from its pushes
      // whose deletion the remote no longer lists.
      if page.startsOver || cursor == nil {
        try await commit([SQLiteBatch { db in try SyncLedger.startReplay(in: db) }])
      }
      if page.rows.isEmpty {
        if try await read({ db in try SyncLedger.isReplaying(in: db) }) {
          return written + (try await endReplay(at: page.cursor))
        }
        if page.cursor != cursor {
          try await commit([SQLiteBatch { db in try SyncLedger.setPulled(page.cursor, in: db) }])
        }
        return written
      }
      written += try await write(page)
    }
  }

  /// Ends a replay: the rows the replica had from the remote that it did not bring were
  /// deleted there, and are deleted here as a pulled deletion is (a row with a local change or
  /// a conflict waiting keeps it).
  private func endReplay(at cursor: String) async throws(SyncError) -> Int {
    let missing = try await read { db in try SyncLedger.unconfirmedRows(in: db) }
    // NB: above every version: the replica knows none of these deletions.
    let deletions = missing.map {
      SyncedRow(table: $0.table, id: $0.id, json: nil, version: .max, writer: "")
    }
    return try await write(SyncPage(rows: deletions, cursor: cursor), endingReplay: true)
  }

  /// Writes one page: each row's last change in it, but those a local change holds back.
  private func write(_ page: SyncPage, endingReplay: Bool = false) async throws(SyncError)
    -> Int
  {
    var refusedIDs = Set<String>()
    while true {
      let tables = tables
      let plan = try await read { db in try PullPlan(page, tables: tables, in: db) }
      var batches: [SQLiteBatch] = [
        SQLiteBatch { db in
          // NB: in the write's transaction: a local change logged since the plan was read
          // holds its row back, and the plan is made again.
          let pending = try PullPlan.pendingRows(tables: tables, in: db)
          if !pending.isDisjoint(with: plan.writtenKeys) { throw PullPlan.Raced() }
        }
      ]
      var written = 0
      for (table, rows) in plan.writes {
        guard let synced = tables[table] else { continue }
        let taken = rows.filter { !refusedIDs.contains("\(table)\u{0}\($0.id)") }
        let (batch, refused) = synced.write(taken.map { ($0.id, $0.json) })
        for (id, error) in refused {
          logger.error(
            "sync: a remote row cannot be stored here; skipped",
            metadata: ["table": "\(table)", "id": "\(id)", "error": "\(error)"])
          refusedIDs.insert("\(table)\u{0}\(id)")
        }
        written += taken.count - refused.count
        batches.append(batch)
      }
      let refusedNow = refusedIDs
      batches.append(
        SQLiteBatch { db in
          try plan.record(cursor: page.cursor, skipping: refusedNow, in: db)
          if endingReplay { try SyncLedger.endReplay(in: db) }
        })
      do {
        try await database.commit(batches)
        return written
      } catch is PullPlan.Raced {
        continue
      } catch let rejected as RejectedWrites {
        for write in rejected.writes {
          logger.error(
            "sync: the file refused a remote row; skipped",
            metadata: ["table": "\(write.table)", "id": "\(write.id)", "reason": "\(write.reason)"])
          refusedIDs.insert("\(write.table)\u{0}\(write.id)")
        }
      } catch {
        throw .database(SQLiteDatabaseError(error, path: database.path))
      }
    }
  }

  // MARK: - The file

  private func read<Value: Sendable>(_ work: @escaping @Sendable (Database) throws -> Value)
    async throws(SyncError) -> Value
  {
    do {
      return try await database.writer.read(work)
    } catch {
      throw .database(SQLiteDatabaseError(error, path: database.path))
    }
  }

  private func commit(_ batches: [SQLiteBatch]) async throws(SyncError) {
    do {
      try await database.commit(batches)
    } catch {
      throw .database(SQLiteDatabaseError(error, path: database.path))
    }
  }
}
