import Foundation
import Logging
import ReduxCoreTesting
import ReduxKit
import Synchronization
import TerminalIO
import Testing

@testable import BoardCore

/// `board --server`: the board a server keeps, shown at once when changed here, rolled back
/// when the server refuses, and following what other clients change. Against an in-memory
/// server that answers as `board-server` does (tags, 412 on a stale tag, a long poll).
@MainActor
@Suite(.timeLimit(.minutes(1))) struct ServerSyncTests {
  let server = FakeBoardServer()
  let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

  func connect() async throws -> BoardSession {
    let ids = Mutex(0)
    return try await BoardSession.connect(
      to: server, clock: ManualClock(), now: { Date(timeIntervalSince1970: 1_800_000_000) },
      newID: {
        ids.withLock { id in
          id += 1
          return "made-here-\(id)"
        }
      }, logger: logger)
  }

  func run(_ session: BoardSession, _ line: String) async throws -> Reply {
    await session.run(try #require(try CommandParser.parse(line)))
  }

  @Test func theServersBoardIsNumberedInItsOrderAndEveryChangeReachesTheServer() async throws {
    await server.seed(columns: ["todo": "Todo", "done": "Done"], cards: [("a", "todo", "Write")])
    let session = try await connect()
    #expect(try await run(session, "list").text == "Todo (1)\n  #1 Write\nDone (0)")

    #expect(try await run(session, "add Todo Review").text == #"added #2 "Review" to Todo (saved)"#)
    #expect(try await run(session, "move 1 Done").text == "moved #1 to Done (saved)")
    #expect(try await run(session, "note 2 read it twice").text == "updated #2 (saved)")
    #expect(try await run(session, "column add Later").text == "added column Later (saved)")
    #expect(await server.titles == ["Review", "Write"])  // a moved card goes last
    #expect(await server.card("made-here-1")?.notes == "read it twice")
    #expect(await server.columnNames == ["Todo", "Done", "Later"])
    #expect(try await run(session, "delete 1").text == #"deleted #1 "Write" (saved)"#)
    #expect(await server.titles == ["Review"])
    #expect(try await run(session, "undo").text.contains("not available with --server"))
    let navigation = BoardNavigation(session: session, logger: logger)
    let keys = FullScreenMode.frame(
      of: navigation, session: session, size: TerminalSize(columns: 100, rows: 10)
    ).lines.last?.text
    #expect(keys?.contains("/ search  ? help") == true)  // no undo offered
    try await session.shutdown()
  }

  @Test func aChangeShowsBeforeTheServerAnswers() async throws {
    await server.seed(columns: ["todo": "Todo"], cards: [])
    let session = try await connect()
    let gate = Gate()
    await server.holdWrites(at: gate)
    let adding = Task { try await run(session, "add Todo Draft") }
    await gate.waitForWaiters(1)
    await waitUntil { session.board.cards.map(\.title) == ["Draft"] }  // shown, not yet sent
    #expect(await server.titles.isEmpty)
    gate.open()
    #expect(try await adding.value.text == #"added #1 "Draft" to Todo (saved)"#)
    #expect(await server.titles == ["Draft"])
    try await session.shutdown()
  }

  @Test func aWriteRefusedByTheServerIsRolledBackToTheServersVersion() async throws {
    await server.seed(columns: ["todo": "Todo"], cards: [("a", "todo", "Original")])
    let session = try await connect()
    // Another client changes the card; this one has not heard of it yet.
    await server.changeElsewhere("a", title: "Theirs", notify: false)

    let reply = try await run(session, "title 1 Mine")
    #expect(reply.isError)
    #expect(reply.text.contains("someone changed it first"))
    #expect(session.board.cards[1]?.title == "Theirs")  // the server's version, not "Mine"
    #expect(await server.titles == ["Theirs"])
    #expect(try await run(session, "title 1 Mine, on theirs").text == "updated #1 (saved)")
    #expect(await server.titles == ["Mine, on theirs"])
    try await session.shutdown()
  }

  @Test func whatOtherClientsChangeShowsAsItHappens() async throws {
    await server.seed(columns: ["todo": "Todo"], cards: [("a", "todo", "Original")])
    let session = try await connect()
    await server.changeElsewhere("a", title: "Renamed elsewhere", notify: true)
    await waitUntil { session.board.cards[1]?.title == "Renamed elsewhere" }
    await server.addElsewhere("b", column: "todo", title: "Added elsewhere")
    await waitUntil { session.board.cards[2]?.title == "Added elsewhere" }
    // Search reads the board as it is now: the cache was invalidated by the change.
    #expect(try await run(session, "search elsewhere").text.contains("2 card(s) match"))
    try await session.shutdown()
  }

  @Test func aServerThatCannotBeReachedIsSaidSo() async throws {
    await server.seed(columns: ["todo": "Todo"], cards: [("a", "todo", "Original")])
    let session = try await connect()
    await server.goDown()
    let reply = try await run(session, "title 1 Offline edit")
    #expect(reply.isError)
    #expect(reply.text.contains("cannot be reached"))
    #expect(session.board.cards[1]?.title == "Original")  // rolled back
    guard case .server(let sync) = session.storage else { throw CancellationError() }
    #expect(StatusLine.server(sync).isProblem)
    try await session.shutdown()

    await #expect(throws: BoardServerError.self) { try await connect() }
  }
}

/// A board server in memory that answers as `board-server` does: tags that change with every
/// write, 412 for a stale tag, 409 for a column that holds cards, and a long poll woken by
/// every change.
actor FakeBoardServer: BoardServerAPI {
  private var columns: [ServerColumn] = []
  private var cards: [ServerCard] = []
  private var revision = 0
  private var isDown = false
  private var writeGate: Gate?
  private var pollers: [CheckedContinuation<Void, Never>] = []
  private let created = Date(timeIntervalSince1970: 1_700_000_000)

  func seed(columns: KeyValuePairs<String, String>, cards: [(String, String, String)]) {
    self.columns = columns.map { ServerColumn(id: $0.key, name: $0.value, tag: nextTag()) }
    self.cards = cards.map {
      ServerCard(
        id: $0.0, columnID: $0.1, title: $0.2, createdAt: created, updatedAt: created,
        tag: nextTag())
    }
  }

  var titles: [String] { cards.map(\.title) }
  var columnNames: [String] { columns.map(\.name) }
  func card(_ id: String) -> ServerCard? { cards.first { $0.id == id } }

  /// Holds every write until `gate` opens.
  func holdWrites(at gate: Gate) { writeGate = gate }

  func goDown() { isDown = true }

  /// Another client's write; `notify: false` leaves the long polls asleep (a change they have
  /// not reported yet).
  func changeElsewhere(_ id: String, title: String, notify: Bool) {
    guard let index = cards.firstIndex(where: { $0.id == id }) else { return }
    cards[index].title = title
    cards[index].tag = nextTag()
    if notify { wakePollers() }
  }

  func addElsewhere(_ id: String, column: String, title: String) {
    cards.append(
      ServerCard(
        id: id, columnID: column, title: title, createdAt: created, updatedAt: created,
        tag: nextTag()))
    wakePollers()
  }

  private func nextTag() -> String {
    revision += 1
    return "\"\(revision)\""
  }

  private var boardTag: String { "W/\"\(revision)\"" }

  private func wakePollers() {
    let waiting = pollers
    pollers = []
    for poller in waiting { poller.resume() }
  }

  private func checkUp() throws(BoardServerError) {
    if isDown { throw .unreachable("Connection refused") }
  }

  private func write() async throws(BoardServerError) {
    try checkUp()
    if let writeGate {
      do {
        try await writeGate.wait()
      } catch {
        throw .unreachable("cancelled")
      }
    }
  }

  // MARK: - BoardServerAPI

  func board() async throws(BoardServerError) -> ServerBoard {
    try checkUp()
    return ServerBoard(columns: columns, cards: cards)
  }

  func changes(after tag: String?) async throws(BoardServerError) -> String {
    try checkUp()
    if tag == boardTag {
      // NB: woken by the next change; a cancelled poll (the session stopping) is let go then.
      await withTaskCancellationHandler {
        await withCheckedContinuation { pollers.append($0) }
      } onCancel: {
        Task { await self.wakePollers() }
      }
      try checkUp()
    }
    return boardTag
  }

  func createColumn(id: String, name: String) async throws(BoardServerError) -> ServerColumn {
    try await write()
    let column = ServerColumn(id: id, name: name, tag: nextTag())
    columns.append(column)
    wakePollers()
    return column
  }

  func renameColumn(id: String, tag: String, name: String) async throws(BoardServerError)
    -> ServerColumn
  {
    try await write()
    guard let index = columns.firstIndex(where: { $0.id == id }) else { throw .gone }
    guard columns[index].tag == tag else { throw .changedElsewhere }
    columns[index].name = name
    columns[index].tag = nextTag()
    wakePollers()
    return columns[index]
  }

  func deleteColumn(id: String, tag: String) async throws(BoardServerError) {
    try await write()
    guard let index = columns.firstIndex(where: { $0.id == id }) else { throw .gone }
    guard columns[index].tag == tag else { throw .changedElsewhere }
    guard !cards.contains(where: { $0.columnID == id }) else {
      throw .refused(status: 409, message: "the column holds cards")
    }
    columns.remove(at: index)
    revision += 1
    wakePollers()
  }

  func createCard(_ card: ServerCard) async throws(BoardServerError) -> ServerCard {
    try await write()
    var card = card
    card.tag = nextTag()
    cards.append(card)
    wakePollers()
    return card
  }

  func updateCard(id: String, tag: String, _ change: ServerCardChange)
    async throws(BoardServerError) -> ServerCard
  {
    try await write()
    guard let index = cards.firstIndex(where: { $0.id == id }) else { throw .gone }
    guard cards[index].tag == tag else { throw .changedElsewhere }
    var card = cards[index]
    if let title = change.title { card.title = title }
    if let notes = change.notes { card.notes = notes }
    if let tags = change.tags { card.tags = tags }
    if let due = change.due { card.due = due }
    card.tag = nextTag()
    if let columnID = change.columnID, columnID != card.columnID {
      card.columnID = columnID
      cards.remove(at: index)
      cards.append(card)
    } else {
      cards[index] = card
    }
    wakePollers()
    return card
  }

  func deleteCard(id: String, tag: String) async throws(BoardServerError) {
    try await write()
    guard let index = cards.firstIndex(where: { $0.id == id }) else { throw .gone }
    guard cards[index].tag == tag else { throw .changedElsewhere }
    cards.remove(at: index)
    revision += 1
    wakePollers()
  }
}
