package import Foundation
package import Logging
import Observation
package import ReduxKit

/// The board at run time: its store, where it is kept (a SQLite file, or a board server), its
/// query cache; runs commands and says what happened in words. Both modes (line and full
/// screen) drive the board through it.
@MainActor
@Observable
package final class BoardSession {
  /// Where the board is kept.
  package enum Storage {
    /// A SQLite file of this machine: every change is saved by the persistence middleware,
    /// and the changes other boards make to the file arrive through its feed.
    case local(BoardDatabase)
    /// A board server (`board --server URL`), replicated in a file of this machine: every
    /// change is saved there first, and sent when the server can be reached.
    case server(BoardReplica)
  }

  @ObservationIgnored let store: Store<BoardState, BoardAction>
  @ObservationIgnored package let storage: Storage
  @ObservationIgnored let queries: BoardQueries
  /// The cards of each column, grouped once per change.
  @ObservationIgnored private let columnCards: ColumnCards
  @ObservationIgnored private let now: @Sendable () -> Date
  @ObservationIgnored private let logger: Logger
  /// What records the board for DevTools (`--devtools`, `--record`), if anything does.
  @ObservationIgnored package let recorder: BoardRecorder?
  /// The time travel DevTools drive: while it shows a past state, changes are refused.
  @ObservationIgnored package let travel: BoardTimeTravel?
  /// The reply of the last command run: what the full screen's status line says.
  private(set) var lastReply: Reply?
  /// The last command that failed or was refused, in words, until a later one fails.
  private(set) var lastProblem: String?
  /// Where the DevTools page is (`--devtools`), in words: the full screen's header shows it.
  var devToolsPage: String?
  /// The cards as this board had edited them when another board's change to them won: what
  /// the user typed, which the edit form starts from again.
  private(set) var lostEdits: [Int: Card] = [:]

  /// - Parameters:
  ///   - state: The hydrated board.
  ///   - database: Where changes are saved (its persistence's reducer runs last), and where
  ///     other boards' changes come from (``followOtherBoards(pollInterval:clock:)``).
  ///   - clock: The clock of the query cache's stale times.
  ///   - now: The time put on cards (tests fix it).
  ///   - recorder: Records every action for DevTools, and makes ``travel``.
  ///   - logger: Where the store's refusals and errors go (a file, never the screen).
  package init(
    state: BoardState, database: BoardDatabase,
    clock: any Clock<Duration> = ContinuousClock(),
    now: @escaping @Sendable () -> Date = Date.init, recorder: BoardRecorder? = nil,
    logger: Logger
  ) {
    let persistence = database.persistence
    storage = .local(database)
    self.logger = logger
    self.now = now
    queries = BoardQueries(
      state: state, client: QueryClient(clock: clock, logger: logger), logger: logger)
    let store = Store(
      initialState: state,
      // NB: the query invalidation reads the changes before Persistence drains them.
      reducers: [boardHistory, boardReducer] + queries.reducers + [persistence.reducer()],
      inspector: recorder,
      onLog: Self.log(to: logger, recording: recorder))
    self.store = store
    columnCards = ColumnCards(of: store.state)
    self.recorder = recorder
    recorder?.start(from: store)
    travel = recorder.map { recorder in
      BoardTimeTravel(store: store, recorder: recorder, resumeAction: .travelResumed) { start in
        // NB: a skipped action is recomputed by the board's reducers alone: nothing saved,
        // no query run, until the travel resumes.
        Store(initialState: BoardState(restoring: start), reducers: Self.replayedReducers)
      }
    }
  }

  /// The reducers a DevTools replay or recomputation runs: the board's own, without saving.
  static let replayedReducers = [boardHistory, boardReducer]

  /// The store's log: to `logger`, and to `recorder` (its stages' timings) when there is one.
  private static func log(to logger: Logger, recording recorder: BoardRecorder?)
    -> @Sendable (Store<BoardState, BoardAction>.Log) -> Void
  {
    guard let recorder else { return logger.log }
    return { entry in
      recorder.log(entry)
      logger.log(entry)
    }
  }

  /// The board a server keeps, replicated in the file at `path`: synced once before it is
  /// shown (when the server can be reached; otherwise the file's board is shown, offline),
  /// then followed: the changes other clients make show here as they happen.
  ///
  /// - Parameters:
  ///   - path: The replica's file (created when missing).
  ///   - remote: The server's sync routes.
  ///   - changes: The server's change feed, if it has one (`GET /changes`).
  ///   - clock: The clock of the query cache and of the delays between attempts.
  ///   - now: The time put on cards.
  ///   - newID: Makes the server's id of a card or column created here.
  ///   - logger: Where refusals and errors go.
  /// - Throws: `SQLiteDatabaseError` or `SyncError` when the file cannot be opened.
  package static func connect(
    replicaAt path: String, remote: any SyncRemote,
    changes: (@Sendable (String?) async throws -> String)? = nil,
    clock: any Clock<Duration> = ContinuousClock(),
    now: @escaping @Sendable () -> Date = Date.init,
    newID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() },
    logger: Logger
  ) async throws -> BoardSession {
    let replica = try await BoardReplica(
      path: path, remote: remote, changes: changes, clock: clock, newID: newID, logger: logger)
    await replica.sync()
    if let refusal = replica.refusal {
      await replica.stop()
      throw refusal
    }
    let (columns, cards) = replica.localBoard()
    let session = BoardSession(
      state: BoardState(columns: columns, cards: cards), replica: replica,
      client: QueryClient(clock: clock, logger: logger), now: now, logger: logger)
    replica.follow(into: session.store)
    return session
  }

  private init(
    state: BoardState, replica: BoardReplica, client: QueryClient,
    now: @escaping @Sendable () -> Date, logger: Logger
  ) {
    storage = .server(replica)
    self.logger = logger
    self.now = now
    recorder = nil
    travel = nil
    queries = BoardQueries(state: state, client: client, logger: logger)
    // NB: no undo history (the server keeps none) and no persistence (the replica saves the
    // changes): the last reducer drops
    // the changes the query invalidation has read.
    let discardChanges = AnyReducer<BoardState, BoardAction>(id: "discardChanges") { context in
      _ = context.state.cards.drainChanges()
      _ = context.state.columns.drainChanges()
    }
    store = Store(
      initialState: state, reducers: [boardReducer] + queries.reducers + [discardChanges],
      onLog: logger.log)
    columnCards = ColumnCards(of: store.state)
  }

  /// Saves or sends what is pending and stops following the server.
  package func shutdown() async throws {
    switch storage {
    case .local(let database):
      database.stopFollowing()
      try await database.persistence.shutdown()
    case .server(let replica): await replica.stop()
    }
    store.shutdown()
  }

  package var board: ReadOnlyView<BoardState> { store.state }

  /// The cards of `column`, in board order.
  func cards(in column: Column) -> [Card] {
    columnCards.cards(inColumn: column.id)
  }

  /// Runs `command` and remembers its reply.
  ///
  /// - Parameter waitsForSave: Whether a change is reported only once saved ("(saved)"): line
  ///   mode's promise. The full screen does not wait; its status line shows the pending
  ///   writes and the last flush instead, so a keystroke redraws at once.
  @discardableResult
  func run(_ command: Command, waitsForSave: Bool = true) async -> Reply {
    let reply: Reply
    do {
      reply = try await execute(command, waitsForSave: waitsForSave)
    } catch {
      reply = .error("\(error)")
    }
    lastReply = reply
    if reply.isError { lastProblem = reply.text }
    return reply
  }

  private func execute(_ command: Command, waitsForSave: Bool) async throws -> Reply {
    switch command {
    case .add(let columnName, let title):
      let column = try column(named: columnName)
      let id =
        switch storage {
        case .server(let sync): sync.nextCardID
        case .local(let database): try await database.newCardID()
        }
      return try await change(
        waitsForSave,
        .addCard(id: id, columnID: column.id, title: title, at: now()),
        "added #\(id) \"\(title)\" to \(column.name)")
    case .move(let id, let columnName):
      let card = try card(id)
      let column = try column(named: columnName)
      guard card.columnID != column.id else { return .info("#\(id) is already in \(column.name)") }
      return try await change(
        waitsForSave,
        .moveCard(id: id, toColumnID: column.id, at: now()), "moved #\(id) to \(column.name)")
    case .edit(let id, let edits):
      _ = try card(id)
      guard !edits.isEmpty else { return .info("#\(id) is unchanged") }
      return try await change(waitsForSave, .editCard(id: id, edits, at: now()), "updated #\(id)")
    case .delete(let id):
      let card = try card(id)
      return try await change(waitsForSave, .deleteCard(id: id), "deleted #\(id) \"\(card.title)\"")
    case .show(let id):
      return .info(BoardText.detail(of: try card(id), on: board))
    case .list(let columnName):
      let columns = try columnName.map { [try column(named: $0)] } ?? Array(board.columns)
      return .info(BoardText.list(columns, cards: cards(in:)))
    case .search(let text):
      let hits = await search(text)
      return .info(BoardText.searchResults(hits, for: text, on: board))
    case .stats:
      return .info(BoardText.stats(await queries.stats(of: board.cards, columns: board.columns)))
    case .addColumn(let name):
      guard board.column(named: name) == nil else { throw CommandError.columnExists(name) }
      let id =
        switch storage {
        case .server(let sync): sync.nextColumnID
        case .local(let database): try await database.newColumnID()
        }
      return try await change(waitsForSave, .addColumn(id: id, name: name), "added column \(name)")
    case .renameColumn(let from, let to):
      let column = try column(named: from)
      guard board.column(named: to) == nil else { throw CommandError.columnExists(to) }
      return try await change(
        waitsForSave,
        .renameColumn(id: column.id, name: to), "renamed column \(column.name) to \(to)")
    case .deleteColumn(let name):
      let column = try column(named: name)
      let count = cards(in: column).count
      guard count == 0 else { throw CommandError.columnNotEmpty(column.name, cards: count) }
      return try await change(
        waitsForSave, .deleteColumn(id: column.id), "deleted column \(column.name)")
    case .status:
      switch storage {
      case .local(let database):
        return .info(StatusLine.persistence(database.persistence.status).text)
      case .server(let replica):
        let status = StatusLine.server(replica).text
        guard replica.conflictSummary != nil else { return .info(status) }
        return .info(status + " (keep sends yours, theirs takes the server's)")
      }
    case .resolve(let id, let keepingMine):
      guard case .server(let replica) = storage else {
        return .info("conflicts with a server are settled with --server only")
      }
      let name = try await replica.resolve(card: id, keepingMine: keepingMine)
      return .info(keepingMine ? "\(name): yours is sent" : "\(name): the server's is kept")
    case .undo where isOnServer, .redo where isOnServer:
      return .info("undo and redo are not available with --server: the server keeps no history")
    case .undo:
      guard board.undoHistory.canUndo else { return .info("nothing to undo") }
      let before = board.undoSnapshot
      return try await change(
        waitsForSave, .undo,
        "undone: " + BoardText.difference(from: before, to: board.undoSnapshot))
    case .redo:
      guard board.undoHistory.canRedo else { return .info("nothing to redo") }
      let before = board.undoSnapshot
      return try await change(
        waitsForSave, .redo,
        "redone: " + BoardText.difference(from: before, to: board.undoSnapshot))
    case .help:
      return .info(Command.usage)
    case .quit:
      return .info("bye")
    }
  }

  private var isOnServer: Bool {
    if case .server = storage { true } else { false }
  }

  /// Whether undo and redo are offered: not on a server, which keeps no history.
  var canUndo: Bool { !isOnServer }

  /// Dispatches a change and waits until it is saved: "saved" is a promise that a crash
  /// (even `kill -9`) keeps. On a server, saves it in the replica's file, which sends it.
  ///
  /// - Parameter describe: What was done, in words; read once the action is reduced (an undo says
  ///   what it restored).
  private func change(
    _ waitsForSave: Bool, _ action: BoardAction, _ describe: @autoclosure () -> String
  ) async throws -> Reply {
    if let position = travel?.position { throw CommandError.pausedByDevTools(at: position) }
    let persistence: PersistenceMiddleware<BoardState>
    switch storage {
    case .local(let database): persistence = database.persistence
    case .server(let replica):
      let done = describe()
      if let error = await replica.save(action) { return .error("\(done): \(error)") }
      guard waitsForSave else { return .info(done) }
      guard replica.isOffline else { return .info("\(done) (saved)") }
      return .info("\(done) (saved; offline — \(replica.pendingChanges) change(s) to send)")
    }
    let (_, outcome) = await store.dispatchWithOutcome(action)
    let done = describe()
    guard outcome.isReduced else { return .error("\(done): not done: \(outcome)") }
    if case .editCard(let id, _, _) = action { lostEdits[id] = nil }
    guard waitsForSave else { return .info(done) }
    do {
      try await persistence.flush()
      return .info("\(done) (saved)")
    } catch {
      if let lost = await settle(error.conflicts) { return .error("\(done), but \(lost)") }
      if case .rejected = error { return .error("\(done), but not saved: \(error)") }
      return .error("\(done), but not saved yet: \(error) (it will be retried)")
    }
  }

  // MARK: - Other boards on the same file

  /// Follows the changes other boards (other processes) make to the board's file: they show
  /// here within a poll interval, and a change of this board that lost a race to one of them
  /// is settled at once (see ``settle(_:)``). Nothing to follow with `--server`, or on an
  /// in-memory board.
  ///
  /// - Parameters:
  ///   - pollInterval: How often the feed asks whether another board wrote.
  ///   - clock: The clock of the polls.
  package func followOtherBoards(
    pollInterval: Duration = .milliseconds(200), clock: any Clock<Duration> = ContinuousClock()
  ) {
    guard case .local(let database) = storage else { return }
    database.follow(pollInterval: pollInterval, clock: clock) { [weak self] action in
      await self?.receive(action)
    }
  }

  /// Applies another board's changes; if this board has changes waiting to be saved, saves
  /// them now, so that one that lost the race is found and settled at once.
  private func receive(_ action: BoardAction) async {
    guard case .local(let database) = storage else { return }
    let (_, outcome) = await store.dispatchWithOutcome(action)
    guard outcome.isReduced else {
      logger.error(
        "another board's changes were not applied", metadata: ["outcome": "\(outcome)"])
      return
    }
    let status = database.persistence.status
    guard status.pendingCount > 0 || status.lastError != nil else { return }
    do {
      try await database.persistence.flush()
    } catch {
      if let lost = await settle(error.conflicts) { refused(lost) }
    }
  }

  /// Settles conflicts with other boards: their change stands (it was saved first), and what
  /// this board's user had typed is kept, in ``lostEdits`` (the edit form starts from it), in
  /// the log, and said in the reply.
  ///
  /// - Returns: What was lost, in words; `nil` when there was no conflict.
  private func settle(_ conflicts: [PersistenceConflict]) async -> String? {
    guard !conflicts.isEmpty, case .local(let database) = storage else { return nil }
    var lost: [String] = []
    for conflict in conflicts {
      switch conflict.table {
      case BoardDatabase.cards.name:
        guard let id = Int(conflict.id), let mine = board.cards[id] else { continue }
        let theirs = conflict.currentJSON.flatMap {
          try? BoardDatabase.cards.decode($0, id: conflict.id)
        }
        guard theirs != mine else { continue }
        lostEdits[id] = mine
        logger.warning(
          "an edit lost a race with another board; kept in the edit form",
          metadata: ["card": "\(id)", "yours": "\(mine)"])
        lost.append(
          theirs == nil
            ? "#\(id) deleted in another window first: your edit \"\(mine.title)\" not saved"
            : "#\(id) changed in another window first: your edit \"\(mine.title)\" not saved "
              + "(e to redo it)")
      case BoardDatabase.columns.name:
        guard let id = Int(conflict.id), let mine = board.columns[id] else { continue }
        let theirs = conflict.currentJSON.flatMap {
          try? BoardDatabase.columns.decode($0, id: conflict.id)
        }
        guard theirs != mine else { continue }
        lost.append("column \"\(mine.name)\" changed in another window first")
      default: continue
      }
    }
    do {
      let columns = try database.database.keepTheirs(conflicts, in: BoardDatabase.columns)
      let cards = try database.database.keepTheirs(conflicts, in: BoardDatabase.cards)
      for action in [BoardAction.remoteColumns(columns), .remoteCards(cards)] {
        _ = await store.dispatchWithOutcome(action)
      }
      try await database.persistence.flush()
    } catch {
      logger.error("a conflict with another board was not settled", metadata: ["error": "\(error)"])
      lost.append("not saved: \(error)")
    }
    return lost.isEmpty ? nil : lost.joined(separator: "; ")
  }

  private func refused(_ text: String) {
    let reply = Reply.error(text)
    lastReply = reply
    lastProblem = reply.text
  }

  /// The cards whose title, notes or tags contain `text`, served from the query cache while
  /// fresh.
  package func search(_ text: String) async -> [Card] {
    await queries.search(text, in: board.cards)
  }

  /// Follows a deep link (`card/42`), checked whole before anything is shown.
  func open(_ link: String) -> Reply {
    do {
      return .info(BoardText.detail(of: try card(try DeepLink(link).cardID), on: board))
    } catch {
      return .error("\(error)")
    }
  }

  private func card(_ id: Int) throws(CommandError) -> Card {
    guard let card = board.cards[id] else { throw .noSuchCard(id) }
    return card
  }

  private func column(named name: String) throws(CommandError) -> Column {
    guard let column = board.column(named: name) else {
      throw .noSuchColumn(name, known: board.columns.map(\.name))
    }
    return column
  }
}

/// What records the board for DevTools: its actions, and its columns and cards after each.
package typealias BoardRecorder = DevToolsRecorder<BoardState, BoardAction, BoardState.Snapshot>

/// DevTools' time travel on the board's store.
package typealias BoardTimeTravel = DevToolsTimeTravel<
  BoardState, BoardAction, BoardState.Snapshot
>

/// What a command printed: its lines, and whether it failed.
struct Reply: Equatable, Sendable {
  var text: String
  var isError: Bool

  static func info(_ text: String) -> Self { Self(text: text, isError: false) }
  static func error(_ text: String) -> Self { Self(text: "error: \(text)", isError: true) }
}
