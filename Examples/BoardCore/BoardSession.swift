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
    /// A SQLite file of this machine: every change is saved by the persistence middleware.
    case local(PersistenceMiddleware<BoardState>)
    /// A board server (`board --server URL`): every change is a request, shown at once.
    case server(BoardServerSync)
  }

  @ObservationIgnored let store: Store<BoardState, BoardAction>
  @ObservationIgnored package let storage: Storage
  @ObservationIgnored let queries: BoardQueries
  @ObservationIgnored private let now: @Sendable () -> Date
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

  /// - Parameters:
  ///   - state: The hydrated board.
  ///   - persistence: Where changes are saved; its reducer runs last.
  ///   - clock: The clock of the query cache's stale times.
  ///   - now: The time put on cards (tests fix it).
  ///   - recorder: Records every action for DevTools, and makes ``travel``.
  ///   - logger: Where the store's refusals and errors go (a file, never the screen).
  package init(
    state: BoardState, persistence: PersistenceMiddleware<BoardState>,
    clock: any Clock<Duration> = ContinuousClock(),
    now: @escaping @Sendable () -> Date = Date.init, recorder: BoardRecorder? = nil,
    logger: Logger
  ) {
    storage = .local(persistence)
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
    self.recorder = recorder
    recorder?.start(from: store)
    travel = recorder.map { recorder in
      BoardTimeTravel(store: store, recorder: recorder) { start in
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

  /// The board a server keeps, loaded from it, and followed: the changes other clients make
  /// show here as they happen.
  ///
  /// - Parameters:
  ///   - server: The server.
  ///   - clock: The clock of the query cache and of the reconnection delays.
  ///   - now: The time put on cards.
  ///   - newID: Makes the server's id of a card or column created here.
  ///   - logger: Where refusals and errors go.
  /// - Throws: ``BoardServerError`` when the server cannot be reached.
  package static func connect(
    to server: any BoardServerAPI, clock: any Clock<Duration> = ContinuousClock(),
    now: @escaping @Sendable () -> Date = Date.init,
    newID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() },
    logger: Logger
  ) async throws -> BoardSession {
    let client = QueryClient(clock: clock, logger: logger)
    let sync = BoardServerSync(
      api: server, client: client, clock: clock, newID: newID, logger: logger)
    let (columns, cards) = sync.localBoard(try await sync.load())
    let session = BoardSession(
      state: BoardState(columns: columns, cards: cards), sync: sync, client: client, now: now,
      logger: logger)
    await sync.follow(into: session.store)
    return session
  }

  private init(
    state: BoardState, sync: BoardServerSync, client: QueryClient,
    now: @escaping @Sendable () -> Date, logger: Logger
  ) {
    storage = .server(sync)
    self.now = now
    recorder = nil
    travel = nil
    queries = BoardQueries(state: state, client: client, logger: logger)
    // NB: no undo history (the server keeps none) and no persistence: the last reducer drops
    // the changes the query invalidation has read.
    let discardChanges = AnyReducer<BoardState, BoardAction>(id: "discardChanges") { context in
      _ = context.state.cards.drainChanges()
      _ = context.state.columns.drainChanges()
    }
    store = Store(
      initialState: state, reducers: [boardReducer] + queries.reducers + [discardChanges],
      onLog: logger.log)
  }

  /// Saves or sends what is pending and stops following the server.
  package func shutdown() async throws {
    switch storage {
    case .local(let persistence): try await persistence.shutdown()
    case .server(let sync): await sync.stop()
    }
    store.shutdown()
  }

  package var board: ReadOnlyView<BoardState> { store.state }

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
      let id = if case .server(let sync) = storage { sync.nextCardID } else { board.nextCardID }
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
      return .info(BoardText.list(columns, on: board))
    case .search(let text):
      let hits = await search(text)
      return .info(BoardText.searchResults(hits, for: text, on: board))
    case .stats:
      return .info(BoardText.stats(await queries.stats(of: board.cards, columns: board.columns)))
    case .addColumn(let name):
      guard board.column(named: name) == nil else { throw CommandError.columnExists(name) }
      let id =
        if case .server(let sync) = storage { sync.nextColumnID } else { board.nextColumnID }
      return try await change(waitsForSave, .addColumn(id: id, name: name), "added column \(name)")
    case .renameColumn(let from, let to):
      let column = try column(named: from)
      guard board.column(named: to) == nil else { throw CommandError.columnExists(to) }
      return try await change(
        waitsForSave,
        .renameColumn(id: column.id, name: to), "renamed column \(column.name) to \(to)")
    case .deleteColumn(let name):
      let column = try column(named: name)
      let count = board.cards(in: column).count
      guard count == 0 else { throw CommandError.columnNotEmpty(column.name, cards: count) }
      return try await change(
        waitsForSave, .deleteColumn(id: column.id), "deleted column \(column.name)")
    case .undo where isOnServer, .redo where isOnServer:
      return .info("undo and redo are not available with --server: the server keeps no history")
    case .undo:
      guard board.undoHistory.canUndo else { return .info("nothing to undo") }
      return try await change(waitsForSave, .undo, "undone")
    case .redo:
      guard board.undoHistory.canRedo else { return .info("nothing to redo") }
      return try await change(waitsForSave, .redo, "redone")
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
  /// (even `kill -9`) keeps. On a server, sends it (shown at once) and waits for its answer.
  private func change(_ waitsForSave: Bool, _ action: BoardAction, _ done: String) async throws
    -> Reply
  {
    if let position = travel?.position { throw CommandError.pausedByDevTools(at: position) }
    let persistence: PersistenceMiddleware<BoardState>
    switch storage {
    case .local(let local): persistence = local
    case .server(let sync):
      guard waitsForSave else {
        // NB: the full screen shows the change at once and the answer in the status line; a
        // refusal also becomes the last reply.
        Task {
          if let error = await sync.send(action) { self.refused("\(done): not saved: \(error)") }
        }
        return .info(done)
      }
      if let error = await sync.send(action) { return .error("\(done): not saved: \(error)") }
      return .info("\(done) (saved)")
    }
    let (_, outcome) = await store.dispatchWithOutcome(action)
    guard outcome.isReduced else { return .error("\(done): not done: \(outcome)") }
    guard waitsForSave else { return .info(done) }
    do {
      try await persistence.flush()
      return .info("\(done) (saved)")
    } catch {
      return .error("\(done), but not saved yet: \(error) (it will be retried)")
    }
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
