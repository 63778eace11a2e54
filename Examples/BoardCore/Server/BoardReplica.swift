package import Foundation
package import Logging
import Observation
package import ReduxKit

/// `board --server URL`, offline first: the board a `board-server` keeps, replicated in a
/// SQLite file of this machine by a `SyncReplica`.
///
/// - A command changes the file first: it is saved (through a crash) when its reply says so,
///   whether the server can be reached or not. The file's change log is the replica's outbox.
/// - The replica pushes the file's changes and pulls the server's whenever this board changes
///   something, the server's change feed says the board changed, or (while the server cannot
///   be reached) after a growing delay. What it pulls is read back from the file and shown.
/// - A change the server refuses (someone changed or deleted the card first) is a conflict:
///   the card keeps what was typed here, and ``conflicts`` says so until it is resolved
///   (``resolve(card:keepingMine:)``).
///
/// The server names cards and columns by strings; the board shows numbers (`#3`). Each id gets
/// the next number the first time it is seen, for the whole session.
@MainActor
@Observable
package final class BoardReplica {
  package nonisolated static let columns = EntityTable<ReplicaColumn>(
    "columns", conflictPolicy: .lastWriterWins)
  package nonisolated static let cards = EntityTable<ReplicaCard>(
    "cards", conflictPolicy: .lastWriterWins)
  /// The replica's schema: the server's tables, and the replica's bookkeeping.
  package nonisolated static let migrations = [
    SQLiteMigration("server-v1") { db in
      try columns.create(in: db)
      try cards.create(in: db)
    },
    SyncReplica.migration,
  ]

  @ObservationIgnored let database: SQLiteDatabase
  @ObservationIgnored let replica: SyncReplica
  /// The server's change feed: returns the board's tag once it differs from the one given.
  @ObservationIgnored private let changes: (@Sendable (String?) async throws -> String)?
  @ObservationIgnored private var columns: EntityStore<ReplicaColumn>
  @ObservationIgnored private var cards: EntityStore<ReplicaCard>
  @ObservationIgnored private var ids = ServerIDs()
  @ObservationIgnored private let tasks: TaskManager
  @ObservationIgnored private let clock: any Clock<Duration>
  @ObservationIgnored private let newID: @Sendable () -> String
  @ObservationIgnored private let logger: Logger
  @ObservationIgnored private weak var store: Store<BoardState, BoardAction>?
  @ObservationIgnored private var lastWrite: Task<Void, Never>?
  @ObservationIgnored private var lastSync: Task<Void, Never>?
  /// Where the file's change log stood when the board was read from it.
  @ObservationIgnored private let fileCursor: SQLiteFeedCursor
  @ObservationIgnored private let wakeUps: AsyncStream<Void>
  @ObservationIgnored private let wakeUp: AsyncStream<Void>.Continuation
  /// Whether the last sync could not reach the server.
  private(set) var isOffline = false
  /// Changes saved here that the server does not have yet.
  private(set) var pendingChanges = 0
  /// Changes the server refused, each waiting for a resolution.
  private(set) var conflicts: [SyncConflict] = []
  /// Why the last sync failed, until one succeeds.
  private(set) var syncProblem: String?
  /// The server's refusal of this client (401, 403: no token, or the wrong one), until a sync
  /// succeeds: not a reason to wait, as being offline is.
  private(set) var refusal: BoardServerError?

  /// Opens the replica in the file at `path` (created when missing).
  ///
  /// - Parameters:
  ///   - path: The replica's SQLite file.
  ///   - remote: The server's sync routes.
  ///   - changes: The server's change feed (a long poll), if it has one: each change wakes
  ///     the replica at once.
  ///   - clock: The clock of the delays between attempts while the server cannot be reached.
  ///   - newID: Makes the id of a card or column created here.
  ///   - logger: Where failures go.
  /// - Throws: `SQLiteDatabaseError` or `SyncError` when the file cannot be opened.
  package init(
    path: String, remote: any SyncRemote,
    changes: (@Sendable (String?) async throws -> String)? = nil,
    clock: any Clock<Duration> = ContinuousClock(),
    newID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() },
    logger: Logger
  ) async throws {
    database = try SQLiteDatabase(path: path, migrations: Self.migrations)
    replica = try SyncReplica(
      path: path, migrations: Self.migrations,
      tables: [SyncedTable(Self.columns), SyncedTable(Self.cards)], remote: remote,
      logger: logger)
    // NB: before the tables, so that the file's feed brings whatever commits while they are read.
    fileCursor = try await database.feedCursor()
    columns = try await database.load(Self.columns)
    cards = try await database.load(Self.cards)
    self.changes = changes
    self.clock = clock
    self.newID = newID
    self.logger = logger
    tasks = TaskManager(clock: clock)
    (wakeUps, wakeUp) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
  }

  /// The default place of the replica of the server at `url`: beside the board's own file,
  /// named for the server's host and port.
  package nonisolated static func defaultPath(
    server url: URL, environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String {
    let folder = (BoardDatabase.defaultPath(environment: environment) as NSString)
      .deletingLastPathComponent
    let host = (url.host ?? "server").filter {
      $0.isLetter || $0.isNumber || $0 == "." || $0 == "-"
    }
    let port = url.port.map { "-\($0)" } ?? ""
    return (folder as NSString).appendingPathComponent("server-\(host)\(port).sqlite")
  }

  isolated deinit {
    tasks.shutdown()
  }

  /// The board as the store shows it, numbered.
  package func localBoard() -> (EntityStore<Column>, EntityStore<Card>) {
    var local = (columns: EntityStore<Column>(), cards: EntityStore<Card>())
    for column in columns {
      let id = ids.column(column.id)
      local.columns[id] = Column(id: id, name: column.name)
    }
    for card in cards {
      let id = ids.card(card.id)
      local.cards[id] = Card(
        id: id, columnID: ids.column(card.columnID), title: card.title, notes: card.notes,
        tags: card.tags, due: card.due, createdAt: card.createdAt, updatedAt: card.updatedAt)
    }
    return local
  }

  /// Syncs once: what the file holds is sent, what the server holds is received and shown.
  /// Syncs run one after the other: when one returns, what it received is on the board.
  ///
  /// - Returns: Whether the server could be reached.
  @discardableResult
  package func sync() async -> Bool {
    let previous = lastSync
    let work = Task { @MainActor [self] in
      await previous?.value
      return await syncNow()
    }
    lastSync = Task { _ = await work.value }
    return await work.value
  }

  private func syncNow() async -> Bool {
    do {
      let report = try await replica.sync()
      isOffline = false
      syncProblem = nil
      refusal = nil
      if report.pulled > 0 || !report.conflicts.isEmpty { await reload() }
    } catch {
      if case .remote(let reason) = error {
        isOffline = true
        if case .refused(let status, _)? = reason as? BoardServerError, [401, 403].contains(status)
        {
          refusal = reason as? BoardServerError
        }
      } else {
        logger.error("board: the replica could not sync", metadata: ["error": "\(error)"])
      }
      syncProblem = "\(error)"
    }
    await count()
    return !isOffline
  }

  /// Shows the board in `store` and keeps it in step with the server until ``stop()``, and
  /// with the file: another board on the same file (a second terminal) shows here as it saves.
  func follow(into store: Store<BoardState, BoardAction>) {
    self.store = store
    tasks.run(id: "sync") { [weak self] in
      await self?.syncContinuously()
    } onFailure: { _ in
    }
    let file = database.changeFeed(from: fileCursor, clock: clock, logger: logger)
    file.subscribe(Self.columns) { [weak self] changes in
      await self?.receive { $0.columns.apply(changes) }
    }
    file.subscribe(Self.cards) { [weak self] changes in
      await self?.receive { $0.cards.apply(changes) }
    }
    tasks.run(id: "file") {
      await file.run()
    } onFailure: { _ in
    }
    guard let changes else { return }
    tasks.run(id: "feed") { [weak self, changes] in
      await self?.followChanges(changes)
    } onFailure: { _ in
    }
  }

  /// Stops syncing; the writes under way finish, and what they saved is sent once more when
  /// the server could be reached (what is not sent waits in the file for the next start).
  package func stop() async {
    tasks.shutdown()
    wakeUp.finish()
    await lastWrite?.value
    if !isOffline, pendingChanges > 0 { await sync() }
    await lastSync?.value
    try? await replica.close()
    try? database.close()
  }

  /// Syncs at every wake-up; while the server cannot be reached, again after a growing delay
  /// (up to 5 s).
  private func syncContinuously() async {
    var delay = Duration.milliseconds(250)
    var wakeUps = wakeUps.makeAsyncIterator()
    while !Task.isCancelled {
      if await sync() {
        delay = .milliseconds(250)
        guard await wakeUps.next() != nil else { return }
      } else {
        do {
          try await clock.sleep(for: delay)
        } catch {
          return
        }
        delay = min(delay * 2, .seconds(5))
      }
    }
  }

  /// Wakes the replica whenever the server's board changes.
  private func followChanges(_ changes: @Sendable (String?) async throws -> String) async {
    var tag: String?
    var delay = Duration.milliseconds(250)
    while !Task.isCancelled {
      do {
        let next = try await changes(tag)
        delay = .milliseconds(250)
        if next != tag {
          tag = next
          wakeUp.yield()
        }
      } catch {
        do {
          try await clock.sleep(for: delay)
        } catch {
          return
        }
        delay = min(delay * 2, .seconds(5))
      }
    }
  }

  /// Applies what other processes wrote to the file (another board, the replica's pulls).
  private func receive(_ apply: @escaping @MainActor (BoardReplica) -> [String]) async {
    await serially { [self] in
      _ = apply(self)
      await show()
    }
  }

  /// Reads the board back from the file, where the replica wrote what it pulled.
  private func reload() async {
    await serially { [self] in
      do {
        columns = try await database.load(Self.columns)
        cards = try await database.load(Self.cards)
      } catch {
        logger.error("board: the replica's file could not be read", metadata: ["error": "\(error)"])
        return
      }
      await show()
    }
  }

  private func count() async {
    do {
      pendingChanges = try await replica.pendingChanges()
      conflicts = try await replica.conflicts()
    } catch {
      logger.error("board: the replica's outbox could not be read", metadata: ["error": "\(error)"])
    }
  }

  /// Dispatches the board to the store.
  private func show() async {
    guard let store else { return }
    let (columns, cards) = localBoard()
    let (_, outcome) = await store.dispatchWithOutcome(.serverBoard(columns: columns, cards: cards))
    if !outcome.isReduced { logger.error("board: the replica's board was not shown: \(outcome)") }
  }

  // MARK: - Writing

  /// The number the next card created here gets.
  package var nextCardID: Int { ids.nextCard }

  /// The number the next column created here gets.
  package var nextColumnID: Int { ids.nextColumn }

  /// Saves `action` in the file and shows it; the replica sends it when it can.
  ///
  /// - Returns: `nil` once saved here, or why it was not.
  func save(_ action: BoardAction) async -> String? {
    await serially { [self] in
      let change: ReplicaChange
      do {
        change = try plan(action)
      } catch {
        return "\(error)"
      }
      do {
        if !change.columns.isEmpty {
          try await database.persist(to: Self.columns)(change.columns, [])
        }
        if !change.cards.isEmpty || !change.deletedCards.isEmpty {
          try await database.persist(to: Self.cards)(change.cards, change.deletedCards)
        }
        if !change.deletedColumns.isEmpty {
          try await database.persist(to: Self.columns)([], change.deletedColumns)
        }
      } catch {
        logger.error("board: a change was not saved", metadata: ["error": "\(error)"])
        return "not saved: \(error)"
      }
      for column in change.columns { columns[column.id] = column }
      for id in change.deletedColumns { columns[id] = nil }
      for id in change.deletedCards { cards[id] = nil }
      for card in change.cards {
        // NB: a card moved to another column goes last there, as on the server.
        if change.moves { cards[card.id] = nil }
        cards[card.id] = card
      }
      await show()
      await count()
      wakeUp.yield()
      return nil
    }
  }

  /// The first conflict waiting, in words.
  var conflictSummary: String? {
    guard let first = conflicts.first?.conflict else { return nil }
    let more = conflicts.count > 1 ? " (+\(conflicts.count - 1) more)" : ""
    let what = first.currentJSON == nil ? "deleted" : "changed"
    return "conflict: \(name(of: first)) \(what) on the server, yours kept here\(more)"
  }

  /// What the board calls the row of `conflict`: `#3`, or `column "Doing"`.
  func name(of conflict: PersistenceConflict) -> String {
    if conflict.table == Self.cards.name, let id = ids.number(ofCard: conflict.id) {
      return "#\(id)"
    }
    return "column \"\(columns[conflict.id]?.name ?? conflict.id)\""
  }

  /// Settles the conflict on card `id`, or the first conflict waiting when `id` is `nil`: with
  /// `keepingMine`, the row as it is here is sent over the server's; otherwise the server's row
  /// (or its deletion) replaces it here.
  ///
  /// - Returns: What was settled, in the board's words.
  /// - Throws: ``CommandError/noConflict(card:)``, or the replica's `SyncError`.
  func resolve(card id: Int?, keepingMine: Bool) async throws -> String {
    let found =
      if let id {
        ids.serverCard(id).flatMap { serverID in
          conflicts.first { $0.conflict.table == Self.cards.name && $0.conflict.id == serverID }
        }
      } else {
        conflicts.first
      }
    guard let conflict = found?.conflict else { throw CommandError.noConflict(card: id) }
    // NB: named before: the server's side may delete the row here.
    let name = name(of: conflict)
    try await replica.resolve(conflict, keeping: keepingMine ? .mine : .theirs)
    await reload()
    await count()
    wakeUp.yield()
    return name
  }

  /// Runs the writes and reloads one after the other.
  private func serially<Value: Sendable>(_ body: @escaping @MainActor () async -> Value) async
    -> Value
  {
    let previous = lastWrite
    let work = Task { @MainActor in
      await previous?.value
      return await body()
    }
    lastWrite = Task { _ = await work.value }
    return await work.value
  }

  /// What an action writes to the file.
  private struct ReplicaChange {
    var columns: [ReplicaColumn] = []
    var deletedColumns: [String] = []
    var cards: [ReplicaCard] = []
    var deletedCards: [String] = []
    var moves = false
  }

  /// The rows `action` changes.
  private func plan(_ action: BoardAction) throws(BoardServerError) -> ReplicaChange {
    var change = ReplicaChange()
    switch action {
    case .addCard(let id, let columnID, let title, let now):
      let serverID = newID()
      ids.adopt(card: id, as: serverID)
      change.cards = [
        ReplicaCard(
          id: serverID, columnID: try column(columnID).id, title: title, createdAt: now,
          updatedAt: now)
      ]
    case .editCard(let id, let edits, let now):
      var card = try card(id)
      for edit in edits {
        switch edit {
        case .title(let title): card.title = title
        case .notes(let notes): card.notes = notes
        case .tags(let tags): card.tags = tags
        case .due(let due): card.due = due
        }
      }
      card.updatedAt = now
      change.cards = [card]
    case .moveCard(let id, let columnID, let now):
      var card = try card(id)
      card.columnID = try column(columnID).id
      card.updatedAt = now
      change.cards = [card]
      change.moves = true
    case .deleteCard(let id):
      change.deletedCards = [try card(id).id]
    case .addColumn(let id, let name):
      let serverID = newID()
      ids.adopt(column: id, as: serverID)
      change.columns = [ReplicaColumn(id: serverID, name: name)]
    case .renameColumn(let id, let name):
      var column = try column(id)
      column.name = name
      change.columns = [column]
    case .deleteColumn(let id):
      change.deletedColumns = [try column(id).id]
    case .undo, .redo:
      throw .refused(status: 0, message: "undo and redo are not available with --server")
    case .serverBoard, .remoteColumns, .remoteCards, .travelResumed:
      throw .refused(status: 0, message: "\(action) is the board's own, not a change to send")
    }
    return change
  }

  private func card(_ id: Int) throws(BoardServerError) -> ReplicaCard {
    guard let serverID = ids.serverCard(id), let card = cards[serverID] else { throw .gone }
    return card
  }

  private func column(_ id: Int) throws(BoardServerError) -> ReplicaColumn {
    guard let serverID = ids.serverColumn(id), let column = columns[serverID] else {
      throw .gone
    }
    return column
  }
}
