import Foundation
package import Logging
import Observation
package import ReduxKit

/// `board --server URL`: the board as a `board-server` holds it, shared with every client of
/// every server instance, through the query cache.
///
/// - The server's board is the value of one query, ``key``, fetched through a `QueryObserver`;
///   the store shows that value: every change of the cached value (a fetch, an optimistic
///   write, a rollback) is dispatched as ``BoardAction/serverBoard(columns:cards:)``.
/// - A command is an optimistic mutation (`MutationClient`): the cached board changes at once,
///   the request follows, and a refused request (someone changed the card first, the server is
///   down) rolls the cache back and fetches the server's board. Writes go one at a time, each
///   to its answer, so each starts from the board the previous one left.
/// - The server's change feed (`GET /changes`, a long poll) invalidates ``key`` whenever the
///   board changes, here or on any other instance; the observer then fetches it again.
///
/// The server names cards and columns by strings; the board shows numbers (`#3`). Each id the
/// server names gets the next number the first time it is seen, for the whole session.
@MainActor
@Observable
package final class BoardServerSync {
  /// The query the server's board is cached under.
  package static let key = QueryKey("board")

  @ObservationIgnored let api: any BoardServerAPI
  @ObservationIgnored let client: QueryClient
  @ObservationIgnored let observer: QueryObserver<ServerBoard>
  @ObservationIgnored private let mutation: MutationClient
  @ObservationIgnored private let tasks: TaskManager
  @ObservationIgnored private let clock: any Clock<Duration>
  @ObservationIgnored private let logger: Logger
  @ObservationIgnored private var ids = ServerIDs()
  @ObservationIgnored private var lastWrite: Task<Void, Never>?
  @ObservationIgnored private let newID: @Sendable () -> String
  @ObservationIgnored private weak var store: Store<BoardState, BoardAction>?
  /// The board's tag the feed reported last.
  @ObservationIgnored private var feedTag: String?
  /// Writes sent and not answered yet.
  private(set) var writesInFlight = 0
  /// Why the last write failed, until one succeeds.
  private(set) var writeProblem: String?
  /// Why the change feed cannot reach the server, until it can.
  private(set) var feedProblem: String?

  /// - Parameters:
  ///   - api: The server.
  ///   - client: The query cache the board is kept in (the session's, beside search and stats).
  ///   - clock: The clock of the feed's reconnection delays.
  ///   - newID: Makes the id of a card or column created here (tests fix it).
  ///   - logger: Where failures go.
  package init(
    api: any BoardServerAPI, client: QueryClient, clock: any Clock<Duration> = ContinuousClock(),
    newID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() },
    logger: Logger
  ) {
    self.api = api
    self.client = client
    self.clock = clock
    self.newID = newID
    self.logger = logger
    tasks = TaskManager(clock: clock)
    mutation = MutationClient(client: client)
    observer = QueryObserver(
      client: client, queryKey: Self.key,
      // NB: fresh until the feed says otherwise: the feed invalidates it on every change.
      options: QueryOptions(staleTime: .seconds(3600), refetchOnAppear: false)
    ) { [api] in try await api.board() }
  }

  isolated deinit {
    tasks.shutdown()
  }

  /// Fetches the board once.
  ///
  /// - Throws: ``BoardServerError`` when the server cannot be reached or answers badly.
  package func load() async throws -> ServerBoard {
    // NB: the feed's position first, then the board: a change in between is reported to the
    // feed at once, and the board is not fetched twice for nothing.
    feedTag = try await api.changes(after: nil)
    await observer.fetch()
    guard let board = observer.box.data else {
      throw observer.box.error ?? BoardServerError.unreachable("no answer")
    }
    return board
  }

  /// The board as the store shows it, numbered.
  package func localBoard(_ board: ServerBoard) -> (EntityStore<Column>, EntityStore<Card>) {
    var columns = EntityStore<Column>()
    for column in board.columns {
      let id = ids.column(column.id)
      columns[id] = Column(id: id, name: column.name)
    }
    var cards = EntityStore<Card>()
    for card in board.cards {
      let id = ids.card(card.id)
      cards[id] = Card(
        id: id, columnID: ids.column(card.columnID), title: card.title, notes: card.notes,
        tags: card.tags, due: card.due, createdAt: card.createdAt, updatedAt: card.updatedAt)
    }
    return (columns, cards)
  }

  /// Shows every change of the cached board in `store`, refetches when the board is
  /// invalidated, and follows the server's change feed, until ``stop()``.
  ///
  /// It returns once the cache's streams are registered: a change made right after is shown.
  func follow(into store: Store<BoardState, BoardAction>) async {
    self.store = store
    let updates = await client.createSyncStream(queryKey: Self.key)
    let invalidations = await client.createInvalidationStream(queryKey: Self.key)
    tasks.run(id: "show") { [weak self] in
      for await _ in updates {
        guard let self else { return }
        await show()
      }
    } onFailure: { _ in
    }
    tasks.run(id: "refetch") { [observer] in
      for await _ in invalidations { await observer.refresh() }
    } onFailure: { _ in
    }
    tasks.run(id: "feed") { [weak self] in
      await self?.followChanges()
    } onFailure: { _ in
    }
  }

  /// Dispatches the cached board to the store.
  ///
  /// NB: read without a suspension, then dispatched in the same turn: two shows reach the
  /// store in the order they read the cache, so an older board never lands after a newer one.
  /// An invalidated board (dropped until it is fetched again) leaves the store as it is,
  /// unless `fetchingIfDropped`: then the board fetched now (the newest) is shown.
  private func show(fetchingIfDropped: Bool = false) async {
    guard let store else { return }
    var cached = client.freshQueryData(
      Self.key, as: ServerBoard.self, staleTime: observer.options.staleTime)
    if cached == nil, fetchingIfDropped {
      let api = api
      let (_, fetched) = await client.fetch(queryKey: Self.key, options: observer.options) {
        try await api.board()
      }
      cached = try? fetched.get()
    }
    guard let board = cached else { return }
    let (columns, cards) = localBoard(board)
    let (_, outcome) = await store.dispatchWithOutcome(.serverBoard(columns: columns, cards: cards))
    if !outcome.isReduced {
      logger.error("board: the server's board was not shown: \(outcome)")
    }
  }

  /// Stops following the server; the writes under way finish.
  package func stop() async {
    tasks.shutdown()
    await lastWrite?.value
  }

  /// Long-polls the server's change feed and invalidates the board at every change; retries
  /// with a growing delay (up to 10 s) while the server cannot be reached.
  private func followChanges() async {
    var delay = Duration.milliseconds(500)
    while !Task.isCancelled {
      do {
        let next = try await api.changes(after: feedTag)
        feedProblem = nil
        delay = .milliseconds(500)
        if next != feedTag {
          feedTag = next
          await client.invalidate(Self.key, exact: true)
        }
      } catch {
        guard !Task.isCancelled else { return }
        if feedProblem == nil { logger.warning("board: the server's change feed: \(error)") }
        feedProblem = "\(error)"
        do {
          try await clock.sleep(for: delay)
        } catch {
          return
        }
        delay = min(delay * 2, .seconds(10))
      }
    }
  }

  // MARK: - Writing

  /// The number the next card created here gets.
  package var nextCardID: Int { ids.nextCard }

  /// The number the next column created here gets.
  package var nextColumnID: Int { ids.nextColumn }

  /// Sends `action` to the server as an optimistic mutation: the board shows it at once; a
  /// refusal rolls it back and shows the server's board.
  ///
  /// - Returns: `nil` once the server has it, or why it does not.
  func send(_ action: BoardAction) async -> BoardServerError? {
    let previous = lastWrite
    let write = Task { @MainActor [self] in
      await previous?.value
      let error = await perform(action)
      // NB: shown once answered, whatever the cache's followers have done by then: the
      // command that follows sees its effect. The change feed may have dropped the board
      // meanwhile (an invalidation): then it is fetched again, not left as it was.
      await show(fetchingIfDropped: true)
      return error
    }
    lastWrite = Task { _ = await write.value }
    return await write.value
  }

  private func perform(_ action: BoardAction) async -> BoardServerError? {
    // NB: the cached board, or the fetch that follows an invalidation (which drops the
    // cached value), joined.
    let api = api
    let (_, current) = await client.fetch(queryKey: Self.key, options: observer.options) {
      try await api.board()
    }
    var board: ServerBoard
    switch current {
    case .success(let loaded): board = loaded
    case .failure(let error): return error as? BoardServerError ?? .unreachable("\(error)")
    }
    let request: @Sendable () async throws(BoardServerError) -> Void
    do {
      request = try plan(action, on: &board)
    } catch {
      return error
    }
    writesInFlight += 1
    defer { writesInFlight -= 1 }
    let result = await mutation.asyncPerform(optimistic: Self.key, board) {
      try await request()
    }
    // NB: the server's board, with the tags of what was just written (the next write names
    // them), or what stands after a refusal.
    await observer.refresh()
    switch result {
    case .success:
      writeProblem = nil
      return nil
    case .failure(let error):
      let failure = error as? BoardServerError ?? .unreachable("\(error)")
      writeProblem = "\(failure)"
      logger.warning("board: a write was refused: \(failure)")
      return failure
    }
  }

  /// Applies `action` to `board` as the server will, and returns the request that asks it to.
  private func plan(_ action: BoardAction, on board: inout ServerBoard) throws(BoardServerError)
    -> @Sendable () async throws(BoardServerError) -> Void
  {
    let api = self.api
    switch action {
    case .addCard(let id, let columnID, let title, let now):
      let serverID = newID()
      ids.adopt(card: id, as: serverID)
      let card = ServerCard(
        id: serverID, columnID: try serverColumn(columnID, in: board).id, title: title,
        createdAt: now, updatedAt: now, tag: "")
      board.cards.append(card)
      return { () async throws(BoardServerError) in _ = try await api.createCard(card) }
    case .editCard(let id, let edits, let now):
      let index = try cardIndex(id, in: board)
      var change = ServerCardChange()
      for edit in edits {
        switch edit {
        case .title(let title): change.title = title
        case .notes(let notes): change.notes = notes
        case .tags(let tags): change.tags = tags
        case .due(let due): change.due = .some(due)
        }
      }
      let card = board.cards[index]
      board.cards[index].apply(change, at: now)
      return { [change] () async throws(BoardServerError) in
        _ = try await api.updateCard(id: card.id, tag: card.tag, change)
      }
    case .moveCard(let id, let columnID, let now):
      let index = try cardIndex(id, in: board)
      var change = ServerCardChange()
      change.columnID = try serverColumn(columnID, in: board).id
      let card = board.cards.remove(at: index)
      var moved = card
      moved.apply(change, at: now)
      board.cards.append(moved)  // last in its new column, as the server puts it
      return { [change] () async throws(BoardServerError) in
        _ = try await api.updateCard(id: card.id, tag: card.tag, change)
      }
    case .deleteCard(let id):
      let card = board.cards.remove(at: try cardIndex(id, in: board))
      return { () async throws(BoardServerError) in
        try await api.deleteCard(id: card.id, tag: card.tag)
      }
    case .addColumn(let id, let name):
      let serverID = newID()
      ids.adopt(column: id, as: serverID)
      board.columns.append(ServerColumn(id: serverID, name: name, tag: ""))
      return { () async throws(BoardServerError) in
        _ = try await api.createColumn(id: serverID, name: name)
      }
    case .renameColumn(let id, let name):
      let column = try serverColumn(id, in: board)
      board.columns = board.columns.map {
        $0.id == column.id ? ServerColumn(id: $0.id, name: name, tag: $0.tag) : $0
      }
      return { () async throws(BoardServerError) in
        _ = try await api.renameColumn(id: column.id, tag: column.tag, name: name)
      }
    case .deleteColumn(let id):
      let column = try serverColumn(id, in: board)
      board.columns.removeAll { $0.id == column.id }
      return { () async throws(BoardServerError) in
        try await api.deleteColumn(id: column.id, tag: column.tag)
      }
    case .undo, .redo:
      throw .refused(status: 0, message: "undo and redo are not available with --server")
    case .serverBoard, .remoteColumns, .remoteCards, .travelResumed:
      throw .refused(status: 0, message: "\(action) is the board's own, not a change to send")
    }
  }

  private func cardIndex(_ id: Int, in board: ServerBoard) throws(BoardServerError) -> Int {
    guard let serverID = ids.serverCard(id),
      let index = board.cards.firstIndex(where: { $0.id == serverID })
    else { throw .gone }
    return index
  }

  private func serverColumn(_ id: Int, in board: ServerBoard) throws(BoardServerError)
    -> ServerColumn
  {
    guard let serverID = ids.serverColumn(id),
      let column = board.columns.first(where: { $0.id == serverID })
    else { throw .gone }
    return column
  }
}

extension ServerCard {
  /// The card as the server changes it.
  fileprivate mutating func apply(_ change: ServerCardChange, at now: Date) {
    if let title = change.title { self.title = title }
    if let columnID = change.columnID { self.columnID = columnID }
    if let notes = change.notes { self.notes = notes }
    if let tags = change.tags { self.tags = tags }
    if let due = change.due { self.due = due }
    updatedAt = now
  }
}

/// The numbers the board shows for the server's ids: each id gets the next number the first
/// time it is seen.
struct ServerIDs {
  private var cards: [String: Int] = [:]
  private var cardIDs: [Int: String] = [:]
  private var columns: [String: Int] = [:]
  private var columnIDs: [Int: String] = [:]
  private(set) var nextCard = 1
  private(set) var nextColumn = 1

  mutating func card(_ serverID: String) -> Int {
    if let id = cards[serverID] { return id }
    adopt(card: nextCard, as: serverID)
    return cards[serverID] ?? 0
  }

  mutating func column(_ serverID: String) -> Int {
    if let id = columns[serverID] { return id }
    adopt(column: nextColumn, as: serverID)
    return columns[serverID] ?? 0
  }

  func serverCard(_ id: Int) -> String? { cardIDs[id] }
  func serverColumn(_ id: Int) -> String? { columnIDs[id] }

  mutating func adopt(card id: Int, as serverID: String) {
    cards[serverID] = id
    cardIDs[id] = serverID
    nextCard = max(nextCard, id + 1)
  }

  mutating func adopt(column id: Int, as serverID: String) {
    columns[serverID] = id
    columnIDs[id] = serverID
    nextColumn = max(nextColumn, id + 1)
  }
}
