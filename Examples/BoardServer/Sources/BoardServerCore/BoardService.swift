import EntityTracking
import Foundation
public import Logging
import Persistence
import PersistencePostgres
import PersistenceSQLite
public import ReduxCore
import Synchronization

/// Where the board is stored.
public enum BoardDatabase: Sendable {
  /// PostgreSQL, shared with the other instances (`DATABASE_URL`); `instance` names this one.
  case postgres(url: String, instance: String)
  /// A SQLite file: the embedded default, for one instance.
  case sqlite(path: String)
}

/// Why a request's write did not happen, or did not last.
public enum BoardError: Error, Equatable, Sendable {
  case notFound
  /// The write named another tag than the current card's.
  case preconditionFailed
  /// The write was refused: another instance changed the row first. The server's row is now
  /// in this instance's state.
  case conflict
  case invalid(String)
  /// The request cannot apply to the board as it is (an id taken, a column not empty).
  case conflictingState(String)
  /// The database failed; the change stays pending and is retried.
  case notPersisted(String)
  /// The store refused the change (it is shutting down, say): nothing was written.
  case refused(String)
  /// The database refused the value for good (a value it cannot hold, a constraint): nothing
  /// was written, and the instance holds what the database holds.
  case unstorable(String)
}

/// The board's store, its persistence and, on PostgreSQL, the change feed from the other
/// instances. Every request's write is committed before it is answered, one at a time, so
/// that a conflict is the answer of the request that caused it.
///
/// NB: every dispatch, the change feed's included, runs in that one lane. A write checks its
/// `If-Match` against the state and then dispatches; an action dispatched elsewhere in between
/// (another instance's change, queued before the write's) would be reduced first, and the
/// write would overwrite a card it never checked: a lost update.
@MainActor
public final class BoardService {
  public let store: Store<BoardState, BoardAction>
  public let instance: String
  let persistence: PersistenceMiddleware<BoardState>
  let postgres: PostgresBackend?
  private let close: () async throws -> Void
  let logger: Logger
  private var lastWrite: Task<Void, Never>?
  /// The order the board changed in here, for `GET /sync/pull`.
  var journal: SyncJournal
  private let changeSignal = ChangeSignal()
  let now: @Sendable () -> Date = { Date() }

  nonisolated static let postgresColumns = PostgresTable<Column>("columns")
  nonisolated static let postgresCards = PostgresTable<Card>("cards")
  nonisolated static let sqliteColumns = EntityTable<Column>("columns")
  nonisolated static let sqliteCards = EntityTable<Card>("cards")

  /// Opens the database, loads the board and, on PostgreSQL, starts following the others.
  ///
  /// - Parameters:
  ///   - database: Where the board is stored.
  ///   - pollInterval: How often the change feed reads the log without a notification.
  ///   - logger: Receives the store's, the database's and the feed's messages.
  public static func open(
    _ database: BoardDatabase, pollInterval: Duration = .seconds(2), logger: Logger
  ) async throws -> BoardService {
    switch database {
    case .postgres(let url, let instance):
      let backend = try await PostgresBackend(
        url: url, instance: instance,
        migrations: [
          PostgresMigration("board-v1") { connection in
            try await postgresColumns.create(on: connection, logger: logger)
            try await postgresCards.create(on: connection, logger: logger)
          },
          // NB: a database made before typed columns (each card one jsonb value).
          PostgresMigration("board-v2-columns") { connection in
            try await postgresColumns.convertToColumns(on: connection, logger: logger)
            try await postgresCards.convertToColumns(on: connection, logger: logger)
          },
          // NB: a database made before fractional positions.
          PostgresMigration("board-v3-positions") { connection in
            try await postgresColumns.addPositions(on: connection, logger: logger)
            try await postgresCards.addPositions(on: connection, logger: logger)
          },
          // NB: `updatedBy`, optional: the rows stored keep NULL.
          PostgresMigration("board-v4-updated-by") { connection in
            try await postgresColumns.addColumns(on: connection, logger: logger)
            try await postgresCards.addColumns(on: connection, logger: logger)
          },
          // NB: `syncReceipts`, optional: the rows stored keep NULL.
          PostgresMigration("board-v5-sync-receipts") { connection in
            try await postgresColumns.addColumns(on: connection, logger: logger)
            try await postgresCards.addColumns(on: connection, logger: logger)
          },
        ], logger: logger)
      let cursor = try await backend.feedCursor()
      let state = BoardState(
        columns: try await backend.load(postgresColumns),
        cards: try await backend.load(postgresCards))
      let persistence = PersistenceMiddleware<BoardState>(
        backend: backend,
        writers: [
          StateWriter(keyPath: \.columns, table: postgresColumns, database: backend),
          StateWriter(keyPath: \.cards, table: postgresCards, database: backend),
        ], logger: logger)
      let store = Store(initialState: state, reducers: [boardReducer, persistence.reducer()])
      let feed = backend.changeFeed(from: cursor, pollInterval: pollInterval)
      let following = Mutex<Task<Void, Never>?>(nil)
      let service = BoardService(
        store: store, instance: instance, persistence: persistence, postgres: backend,
        logger: logger
      ) {
        following.withLock { $0 }?.cancel()
        try await persistence.shutdown()
        backend.close()
      }
      feed.subscribe(postgresColumns) { [weak service] in
        await service?.applyRemote(.remoteColumns($0))
      }
      feed.subscribe(postgresCards) { [weak service] in
        await service?.applyRemote(.remoteCards($0))
      }
      following.withLock { $0 = Task { await feed.run() } }
      return service
    case .sqlite(let path):
      let backend = try SQLiteDatabase(
        path: path,
        migrations: [
          SQLiteMigration("board-v1") { db in
            try sqliteColumns.create(in: db)
            try sqliteCards.create(in: db)
          },
          SQLiteMigration("board-v2-versions") { db in
            try sqliteColumns.addVersions(in: db)
            try sqliteCards.addVersions(in: db)
          },
          SQLiteMigration("board-v3-columns") { db in
            try sqliteColumns.convertToColumns(in: db)
            try sqliteCards.convertToColumns(in: db)
          },
          SQLiteMigration("board-v4-positions") { db in
            try sqliteColumns.addPositions(in: db)
            try sqliteCards.addPositions(in: db)
          },
          SQLiteMigration("board-v5-updated-by") { db in
            try sqliteColumns.addColumns(in: db)
            try sqliteCards.addColumns(in: db)
          },
          SQLiteMigration("board-v6-sync-receipts") { db in
            try sqliteColumns.addColumns(in: db)
            try sqliteCards.addColumns(in: db)
          },
        ])
      let state = BoardState(
        columns: try await backend.load(sqliteColumns), cards: try await backend.load(sqliteCards))
      let persistence = PersistenceMiddleware<BoardState>(
        backend: backend,
        writers: [
          StateWriter(keyPath: \.columns, table: sqliteColumns, database: backend),
          StateWriter(keyPath: \.cards, table: sqliteCards, database: backend),
        ], logger: logger)
      let store = Store(initialState: state, reducers: [boardReducer, persistence.reducer()])
      return BoardService(
        store: store, instance: "sqlite", persistence: persistence, postgres: nil, logger: logger
      ) {
        try await persistence.shutdown()
        try backend.close()
      }
    }
  }

  private init(
    store: Store<BoardState, BoardAction>, instance: String,
    persistence: PersistenceMiddleware<BoardState>, postgres: PostgresBackend?, logger: Logger,
    close: @escaping () async throws -> Void
  ) {
    self.store = store
    journal = SyncJournal(columns: store.columns.map(\.id), cards: store.cards.map(\.id))
    self.instance = instance
    self.persistence = persistence
    self.postgres = postgres
    self.logger = logger
    self.close = close
  }

  /// Persists what is pending, stops following the others, closes the database.
  public func shutdown() async throws {
    await lastWrite?.value
    try await close()
    store.shutdown()
  }

  // MARK: - Reading

  public var columns: [Column] { store.columns.values }
  public var cards: [Card] { store.cards.values }
  public func card(_ id: String) -> Card? { store.cards[id] }
  public func column(_ id: String) -> Column? { store.columns[id] }

  /// A tag of the whole board as this instance holds it: the same columns and cards (at the
  /// same revisions, with the same fields, in the same order) give the same tag.
  ///
  /// - Complexity: O(*n*), where *n* is the number of columns and cards.
  public var boardTag: String {
    let tags = store.columns.map(\.entityTag) + ["|"] + store.cards.map(\.entityTag)
    return "W/\"\(fnv1a(tags.joined().utf8))\""
  }

  /// The board's tag once it differs from `tag`: at once if it does already, else at the next
  /// change this instance makes or receives, or after `timeout` (the same tag then).
  public func changes(after tag: String?, timeout: Duration = .seconds(20)) async -> String {
    let current = boardTag
    guard current == tag else { return current }
    await changeSignal.wait(upTo: timeout)
    return boardTag
  }

  /// The health of this instance, for an operator.
  public var health: Health {
    let status = persistence.status
    let metrics = postgres?.metrics
    return Health(
      instance: instance, cards: store.cards.count, pendingChanges: status.pendingCount,
      lastError: status.lastError.map { "\($0)" }, flushes: metrics?.flushes,
      failedFlushes: metrics?.failedFlushes,
      lastFlushMilliseconds: metrics?.lastFlushLatency.map { $0 / .milliseconds(1) },
      maxFlushMilliseconds: metrics.map { $0.maxFlushLatency / .milliseconds(1) },
      conflicts: metrics?.conflicts, remoteChanges: metrics?.remoteChanges,
      feedLagMilliseconds: metrics?.feedLag.map { $0 / .milliseconds(1) },
      feedHeldBackMilliseconds: metrics.map { $0.feedHeldBack / .milliseconds(1) },
      feedReconnects: metrics?.feedReconnects)
  }

  // MARK: - Writing

  /// Creates a column, under the id the client chose (it shows the column before the server
  /// answers) or a new one.
  public func createColumn(_ new: NewColumn, by client: String? = nil) async -> Result<
    Column, BoardError
  > {
    await serially { [self] () async -> Result<Column, BoardError> in
      guard !new.name.isEmpty else { return .failure(.invalid("a column needs a name")) }
      if let invalid = Self.invalidText(["name": new.name]) { return .failure(invalid) }
      let id: String
      switch newID(new.id, taken: store.columns[new.id ?? ""] != nil) {
      case .success(let chosen): id = chosen
      case .failure(let error): return .failure(error)
      }
      let column = Column(id: id, name: new.name, updatedBy: client)
      return await write(.putColumn(column)).map { column }
    }
  }

  /// Renames the column whose ``Column/entityTag`` is `ifMatch`.
  public func renameColumn(
    id: String, ifMatch: String, to name: String, by client: String? = nil
  ) async -> Result<Column, BoardError> {
    await serially { [self] () async -> Result<Column, BoardError> in
      guard var column = store.columns[id] else { return .failure(.notFound) }
      guard column.entityTag == ifMatch else { return .failure(.preconditionFailed) }
      guard !name.isEmpty else { return .failure(.invalid("a column needs a name")) }
      if let invalid = Self.invalidText(["name": name]) { return .failure(invalid) }
      column.name = name
      column.revision += 1
      column.updatedBy = client
      return await write(.putColumn(column)).map { column }
    }
  }

  /// Deletes the column whose ``Column/entityTag`` is `ifMatch`, if it holds no card.
  public func deleteColumn(id: String, ifMatch: String) async -> Result<Void, BoardError> {
    await serially { [self] () async -> Result<Void, BoardError> in
      guard let column = store.columns[id] else { return .failure(.notFound) }
      guard column.entityTag == ifMatch else { return .failure(.preconditionFailed) }
      let count = store.cards.count { $0.columnID == id }
      guard count == 0 else {
        return .failure(.conflictingState("column \(column.name) holds \(count) card(s)"))
      }
      return await write(.deleteColumn(id: id))
    }
  }

  /// Creates a card, under the id the client chose (it shows the card before the server
  /// answers) or a new one.
  public func createCard(_ new: NewCard, by client: String? = nil) async -> Result<
    Card, BoardError
  > {
    await serially { [self] () async -> Result<Card, BoardError> in
      guard !new.title.isEmpty else { return .failure(.invalid("a card needs a title")) }
      if let invalid = Self.invalidText(
        ["title": new.title, "notes": new.notes ?? ""], tags: new.tags ?? [])
      {
        return .failure(invalid)
      }
      guard store.columns[new.columnID] != nil else {
        return .failure(.invalid("no column \(new.columnID)"))
      }
      let id: String
      switch newID(new.id, taken: store.cards[new.id ?? ""] != nil) {
      case .success(let chosen): id = chosen
      case .failure(let error): return .failure(error)
      }
      let card = Card(
        id: id, columnID: new.columnID, title: new.title, notes: new.notes ?? "",
        tags: new.tags ?? [], due: new.due, createdAt: now(), updatedBy: client)
      return await write(.putCard(card)).map { card }
    }
  }

  /// Changes the card whose ``Card/entityTag`` is `ifMatch`. A card moved to another column
  /// goes last there.
  public func updateCard(
    id: String, ifMatch: String, _ change: CardChange, by client: String? = nil
  ) async -> Result<Card, BoardError> {
    await serially { [self] () async -> Result<Card, BoardError> in
      guard var card = store.cards[id] else { return .failure(.notFound) }
      guard card.entityTag == ifMatch else { return .failure(.preconditionFailed) }
      if let invalid = Self.invalidText(
        ["title": change.title ?? "", "notes": change.notes ?? ""], tags: change.tags ?? [])
      {
        return .failure(invalid)
      }
      let moves = change.columnID.map { $0 != card.columnID } ?? false
      if let columnID = change.columnID {
        guard store.columns[columnID] != nil else {
          return .failure(.invalid("no column \(columnID)"))
        }
        card.columnID = columnID
      }
      if let title = change.title {
        guard !title.isEmpty else { return .failure(.invalid("a card needs a title")) }
        card.title = title
      }
      if let notes = change.notes { card.notes = notes }
      if let tags = change.tags { card.tags = tags }
      if let due = change.due { card.due = due }
      card.updatedAt = now()
      card.revision += 1
      card.updatedBy = client
      return await write(moves ? .moveCard(card) : .putCard(card)).map { card }
    }
  }

  /// The most UTF-8 bytes a text field holds, by name; a tag holds `tag`'s.
  ///
  /// NB: a board is copied whole to every instance and client: a 1.9 MB title went to each.
  nonisolated public static let textLimits = [
    "name": 200, "title": 1_000, "notes": 100_000, "tag": 100,
  ]
  /// The most tags a card has.
  nonisolated public static let tagLimit = 50

  /// Why text fields cannot be taken, if they cannot: longer than ``textLimits``, more tags
  /// than ``tagLimit``, or a NUL character, which PostgreSQL's `jsonb` refuses (and most
  /// clients would cut the text at).
  static func invalidText(_ fields: [String: String], tags: [String] = [])
    -> BoardError?
  {
    guard tags.count <= tagLimit else {
      return .invalid("a card has at most \(tagLimit) tags, not \(tags.count)")
    }
    let named = fields.sorted { $0.key < $1.key } + tags.map { ("tag", $0) }
    for (name, text) in named {
      if let limit = textLimits[name], text.utf8.count > limit {
        return .invalid("the \(name) is \(text.utf8.count) bytes long; the most is \(limit)")
      }
      if text.unicodeScalars.contains("\u{0}") {
        return .invalid("the \(name) holds a NUL character (\\u0000), which cannot be stored")
      }
    }
    return nil
  }

  /// The id a client chose for a new entity, checked, or a new one.
  func newID(_ chosen: String?, taken: Bool) -> Result<String, BoardError> {
    guard let chosen else { return .success(UUID().uuidString.lowercased()) }
    guard !chosen.isEmpty, chosen.count <= 64,
      chosen.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
    else {
      return .failure(.invalid("an id is 1 to 64 letters, digits or dashes: \(chosen)"))
    }
    guard !taken else { return .failure(.conflictingState("\(chosen) exists already")) }
    return .success(chosen)
  }

  /// Deletes the card whose ``Card/entityTag`` is `ifMatch`.
  public func deleteCard(id: String, ifMatch: String) async -> Result<Void, BoardError> {
    await serially { [self] () async -> Result<Void, BoardError> in
      guard let card = store.cards[id] else { return .failure(.notFound) }
      guard card.entityTag == ifMatch else { return .failure(.preconditionFailed) }
      return await write(.deleteCard(id: id))
    }
  }

  /// Applies other instances' changes, in the lane of the writes.
  func applyRemote(_ action: BoardAction) async {
    await serially { [self] in
      let outcome = await dispatch(action)
      if !outcome.isReduced {
        // NB: the feed has moved past them; the next conflict or restart brings them back.
        logger.error(
          "other instances' changes were not applied", metadata: ["outcome": "\(outcome)"])
      }
    }
  }

  /// Dispatches `action`, noting in the journal the rows it touches.
  private func dispatch(_ action: BoardAction) async -> DispatchOutcome {
    note(action)
    let (_, outcome) = await store.dispatchWithOutcome(action)
    journal.compact(rows: store.columns.count + store.cards.count) { entry in
      entry.table == "columns" ? store.columns[entry.id] != nil : store.cards[entry.id] != nil
    }
    return outcome
  }

  /// Notes in the journal the rows `action` touches, before it is reduced.
  private func note(_ action: BoardAction) {
    switch action {
    case .batch(let actions): for action in actions { note(action) }
    case .putColumn(let column): journal.record("columns", column.id)
    case .deleteColumn(let id):
      journal.record("columns", id, deletedAt: store.columns[id]?.revision)
    case .putCard(let card), .moveCard(let card): journal.record("cards", card.id)
    case .deleteCard(let id): journal.record("cards", id, deletedAt: store.cards[id]?.revision)
    case .remoteColumns(let changes):
      for change in changes.changes {
        journal.record(
          "columns", change.id,
          deletedAt: change.entity == nil ? store.columns[change.id]?.revision : nil)
      }
    case .remoteCards(let changes):
      for change in changes.changes {
        journal.record(
          "cards", change.id,
          deletedAt: change.entity == nil ? store.cards[change.id]?.revision : nil)
      }
    case .revert(let rejected, _, _):
      for write in rejected { journal.record(write.table, "\(write.id)") }
    }
  }

  /// Runs the writes one after the other, each to its commit.
  func serially<Value: Sendable>(
    _ body: @escaping @MainActor () async -> Value
  ) async -> Value {
    let previous = lastWrite
    let write = Task { @MainActor [changeSignal] in
      await previous?.value
      defer { changeSignal.fire() }
      return await body()
    }
    lastWrite = Task { _ = await write.value }
    return await write.value
  }

  /// Dispatches a request's change and commits it. A change the database refuses for good is
  /// taken back: the instance never serves what it could not store.
  func write(_ action: BoardAction) async -> Result<Void, BoardError> {
    // NB: copy-on-write: the board before the change, in O(1).
    let before = (store.columns, store.cards)
    let outcome = await dispatch(action)
    guard outcome.isReduced else { return .failure(.refused("\(outcome)")) }
    return await commit(revertingTo: before)
  }

  /// Dispatches changes to commit together with ``commit(revertingTo:)``.
  func dispatchWrite(_ action: BoardAction) async -> Result<Void, BoardError> {
    let outcome = await dispatch(action)
    return outcome.isReduced ? .success(()) : .failure(.refused("\(outcome)"))
  }

  /// Commits what was dispatched since the board was `before`. A change the database refuses
  /// for good is taken back: the instance never serves what it could not store.
  func commit(revertingTo before: (columns: EntityStore<Column>, cards: EntityStore<Card>))
    async -> Result<Void, BoardError>
  {
    let (columns, cards) = before
    let committed = await commit()
    guard case .failure(.unstorable) = committed else { return committed }
    let rejected = persistence.status.rejected
    persistence.discardRejected(rejected)
    let reverted = await dispatch(.revert(rejected: rejected, columns: columns, cards: cards))
    if !reverted.isReduced {
      logger.error(
        "a refused write was not taken back from the state", metadata: ["outcome": "\(reverted)"])
    }
    return committed
  }

  /// Commits the pending change. On a conflict, the server's rows win: they replace the local
  /// change in the state, and the request that made it is refused.
  private func commit() async -> Result<Void, BoardError> {
    do {
      try await persistence.flush()
      return .success(())
    } catch {
      if case .rejected(let writes) = error {
        logger.notice(
          "a write the database refuses was refused",
          metadata: ["rejected": "\(writes.map(\.description))"])
        return .failure(.unstorable(writes.map(\.reason.description).joined(separator: "; ")))
      }
      guard let postgres, case .flushFailed(let underlying, _) = error,
        case .conflicts(let conflicts) = underlying as? PostgresBackendError
      else {
        logger.error("a write is not persisted yet", metadata: ["error": "\(error)"])
        return .failure(.notPersisted("\(error)"))
      }
      do {
        let columns = try postgres.keepTheirs(conflicts, in: Self.postgresColumns)
        let cards = try postgres.keepTheirs(conflicts, in: Self.postgresCards)
        for action in [BoardAction.remoteColumns(columns), .remoteCards(cards)] {
          let outcome = await dispatch(action)
          guard outcome.isReduced else { throw BoardError.refused("\(outcome)") }
        }
        try await persistence.flush()
      } catch {
        logger.error("a conflict could not be resolved", metadata: ["error": "\(error)"])
        return .failure(.notPersisted("\(error)"))
      }
      logger.notice(
        "a write met another instance's change: refused",
        metadata: ["conflicts": "\(conflicts.map(\.description))"])
      return .failure(.conflict)
    }
  }
}

/// What `GET /health` reports.
public struct Health: Codable, Sendable {
  public let instance: String
  public let cards: Int
  public let pendingChanges: Int
  public let lastError: String?
  public let flushes: Int?
  public let failedFlushes: Int?
  public let lastFlushMilliseconds: Double?
  public let maxFlushMilliseconds: Double?
  public let conflicts: Int?
  public let remoteChanges: Int?
  public let feedLagMilliseconds: Double?
  /// How long the oldest transaction that can write the change log (a flush) has been open:
  /// the changes committed after it wait that long for this instance's feed.
  public let feedHeldBackMilliseconds: Double?
  public let feedReconnects: Int?
}
