import Foundation
import GRDB
import Logging
import ReduxCoreTesting
import ReduxKit
import Testing

@testable import BoardCore

/// Two boards on one SQLite file, as two terminals open it (two processes; here two opens in
/// one process, each with its own connections and feed; `Scripts/board-e2e.sh` runs two real
/// ones through tmux): ids never collide, each shows the other's changes, an edit that lost a
/// race is said and kept. And a board file made by an earlier release opens.
@MainActor
@Suite(.serialized, .timeLimit(.minutes(1)))
struct SharedBoardFileTests {
  /// One board: its database, its session, and the clock of its feed's polls.
  @MainActor
  final class Board {
    let database: BoardDatabase
    let session: BoardSession
    let feedClock = ManualClock()

    init(_ path: URL) async throws {
      let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
      database = try BoardDatabase(path: path.path, logger: logger)
      session = BoardSession(
        state: try await database.load(), database: database,
        now: { Date(timeIntervalSince1970: 1_800_000_000) }, logger: logger)
      session.followOtherBoards(pollInterval: .milliseconds(200), clock: feedClock)
    }

    func run(_ line: String) async throws -> Reply {
      await session.run(try #require(try CommandParser.parse(line)))
    }

    /// One poll of the feed, and whatever it brings applied (and settled).
    func poll() async {
      await feedClock.waitForSleepers(1)
      await feedClock.advance(by: .milliseconds(200))
      await feedClock.waitForSleepers(1)
    }

    func close() async throws {
      try await session.shutdown()
      try database.database.close()
    }
  }

  @Test func twoBoardsNeverHandOutTheSameCardID() async throws {
    let directory = try TemporaryFolder()
    let a = try await Board(directory.file("board.sqlite"))
    let b = try await Board(directory.file("board.sqlite"))
    for n in 1...5 {
      #expect(try await a.run("add Todo a\(n)").text.hasSuffix("(saved)"))
      #expect(try await b.run("add Todo b\(n)").text.hasSuffix("(saved)"))
    }
    await a.poll()
    await b.poll()
    #expect(a.session.board.cards.count == 10)
    #expect(Set(a.session.board.cards.map(\.id)) == Set(1...10))
    // NB: the same cards; each board shows its own first until it loads the file's order
    // again (order is the rowid's, which converges once it is data: issue "Real tables").
    #expect(
      a.session.board.cards.values.sorted { $0.id < $1.id }
        == b.session.board.cards.values.sorted { $0.id < $1.id })
    try await a.close()
    try await b.close()
  }

  @Test func aCardAddedOrMovedInOneBoardShowsInTheOther() async throws {
    let directory = try TemporaryFolder()
    let a = try await Board(directory.file("board.sqlite"))
    let b = try await Board(directory.file("board.sqlite"))
    _ = try await a.run("add Todo Write the README")
    _ = try await a.run("add Todo Fix the test")
    await b.poll()
    #expect(b.session.board.cards.map(\.title) == ["Write the README", "Fix the test"])

    _ = try await a.run("move 1 Done")
    await b.poll()
    #expect(b.session.board.cards[1]?.columnID == 3)
    #expect(b.session.board.cards.ids == a.session.board.cards.ids)  // moved last in both

    // Undo in B undoes B's own change only, never A's.
    _ = try await b.run("title 2 Fix the flaky test")
    _ = try await a.run("add Doing Review")
    await b.poll()
    #expect(try await b.run("undo").text.hasSuffix("(saved)"))
    #expect(b.session.board.cards[2]?.title == "Fix the test")
    #expect(b.session.board.cards[3]?.title == "Review")
    await a.poll()
    #expect(a.session.board.cards.values == b.session.board.cards.values)
    try await a.close()
    try await b.close()
  }

  @Test func anEditThatLostARaceIsSaidAndWhatWasTypedIsKept() async throws {
    let directory = try TemporaryFolder()
    let a = try await Board(directory.file("board.sqlite"))
    let b = try await Board(directory.file("board.sqlite"))
    _ = try await a.run("add Todo Original")
    await b.poll()

    #expect(try await a.run("title 1 A's title").text.hasSuffix("(saved)"))
    let reply = try await b.run("title 1 B's title")
    #expect(reply.isError)
    #expect(reply.text.contains("#1 changed in another window first"), "\(reply.text)")
    #expect(reply.text.contains("B's title"))
    #expect(b.session.board.cards[1]?.title == "A's title")  // the file's, which won
    #expect(b.session.lostEdits[1]?.title == "B's title")  // what B's user typed
    #expect(
      CardFormScreen.State(editing: b.session.board.cards[1]!, draft: b.session.lostEdits[1])
        .fields.first?.text == "B's title")

    // B's user edits again: saved over A's, and A shows it.
    #expect(try await b.run("title 1 B's title, again").text.hasSuffix("(saved)"))
    #expect(b.session.lostEdits[1] == nil)
    await a.poll()
    #expect(a.session.board.cards[1]?.title == "B's title, again")
    try await a.close()
    try await b.close()
  }

  @Test func aCardDeletedInOneBoardWhileEditedInTheOtherIsSaid() async throws {
    let directory = try TemporaryFolder()
    let a = try await Board(directory.file("board.sqlite"))
    let b = try await Board(directory.file("board.sqlite"))
    _ = try await a.run("add Todo Doomed")
    await b.poll()
    _ = try await a.run("delete 1")
    let reply = try await b.run("note 1 an important note")
    #expect(reply.text.contains("#1 deleted in another window first"), "\(reply.text)")
    #expect(b.session.board.cards[1] == nil)
    #expect(b.session.lostEdits[1]?.notes == "an important note")
    try await a.close()
    try await b.close()
  }

  @Test func anEditWaitingToBeSavedWhenTheOtherBoardsChangeArrivesIsSettledThen() async throws {
    let directory = try TemporaryFolder()
    let a = try await Board(directory.file("board.sqlite"))
    let b = try await Board(directory.file("board.sqlite"))
    _ = try await a.run("add Todo Original")
    await b.poll()
    // B's full screen does not wait for the save: the edit waits for its flush.
    _ = await b.session.run(
      try #require(try CommandParser.parse("title 1 B's")), waitsForSave: false)
    _ = try await a.run("title 1 A's")
    await b.poll()
    #expect(b.session.board.cards[1]?.title == "A's")
    #expect(b.session.lostEdits[1]?.title == "B's")
    #expect(b.session.lastProblem?.contains("#1 changed in another window first") == true)
    try await a.close()
    try await b.close()
  }

  @Test func aBoardFileMadeByTheLastReleaseOpensWithEveryCard() async throws {
    let directory = try TemporaryFolder()
    let file = directory.file("board.sqlite")
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Fixtures/board-made-by-8d40de1.sqlite3")
    try FileManager.default.copyItem(at: fixture, to: file)
    let board = try await Board(file)
    #expect(
      try await board.run("list").text == """
        Todo (1)
          #2 Fix the flaky CI test [ci] [flaky]
        Doing (1)
          #1 Write the README due 2026-12-01
        Done (1)
          #4 Ship 1.0
        Blocked (1)
          #5 Waiting on design
        """)
    #expect(board.session.board.cards[2]?.notes == "It fails one run in twenty")
    // The next id is above every id the file holds (#3 was deleted: never handed out again).
    #expect(try await board.run("add Todo New").text == #"added #6 "New" to Todo (saved)"#)
    #expect(try await board.run("title 2 Fix it").text.hasSuffix("(saved)"))
    try await board.close()
  }

  @Test func aBoardFileOfJSONRowsOpensInTypedColumnsWithEveryCardAndVersion() async throws {
    // Made by the release before typed columns (62881f3): each card one JSON value, with row
    // versions and a change log; a card moved, one deleted, one moved last.
    let directory = try TemporaryFolder()
    let file = directory.file("board.sqlite")
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Fixtures/board-made-by-62881f3.sqlite3")
    try FileManager.default.copyItem(at: fixture, to: file)
    let board = try await Board(file)
    #expect(
      try await board.run("list").text == """
        Todo (2)
          #2 Card with a due date [release] [docs] due 2026-12-24
          #6 Moved last
        Doing (1)
          #1 Write the typed-column migration
        Done (2)
          #4 Ship 0.4
          #3 Review the change feed
        Later (0)
        """)
    let card = try #require(board.session.board.cards[2])
    #expect(card.notes == "Notes with quotes, commas, and ünïcödé")
    #expect(card.createdAt == Date(timeIntervalSinceReferenceDate: 817_457_988.122_266_8))
    try await board.close()

    // The rows are columns any tool reads, at the versions and in the order they had.
    let queue = try DatabaseQueue(path: file.path)
    let rows = try queue.read { db in
      try Row.fetchAll(db, sql: "SELECT id, title, tags, due, version FROM cards ORDER BY rowid")
    }
    try queue.close()
    #expect(rows.map { $0[0] as Int } == [2, 4, 1, 6, 3])
    #expect(rows.map { $0[4] as Int64 } == [9, 11, 6, 15, 11])
    #expect(rows[0][1] as String == "Card with a due date")
    #expect(rows[0][2] as String == #"["release","docs"]"#)
    #expect(rows[0][3] as Double == 819_763_200)

    // And it saves in them.
    let reopened = try await Board(file)
    #expect(try await reopened.run("title 2 Renamed").text.hasSuffix("(saved)"))
    #expect(try await reopened.run("add Later New").text == #"added #7 "New" to Later (saved)"#)
    try await reopened.close()
    let titles = try await DatabaseQueue(path: file.path).read { db in
      try String.fetchAll(db, sql: "SELECT title FROM cards WHERE id IN (2, 7) ORDER BY id")
    }
    #expect(titles == ["Renamed", "New"])
  }

  @Test func aBoardFileMadeBeforePositionsOpensInItsOrderAndAMoveWritesOneRow() async throws {
    // Made by the release before positions (615d74d), rows in rowid order: six cards added,
    // #2 tagged, due and noted, #1 and #3 moved, #5 deleted, #1 moved back and the move undone
    // (which rewrote #1 and #3, after it), a column added.
    let directory = try TemporaryFolder()
    let file = directory.file("board.sqlite")
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Fixtures/board-made-by-615d74d.sqlite3")
    try FileManager.default.copyItem(at: fixture, to: file)
    let listed = """
      Todo (2)
        #2 Second card [release] [docs] due 2026-12-24
        #6 Sixth card
      Doing (2)
        #4 In progress
        #3 Third card
      Done (1)
        #1 First card
      Later (0)
      """
    let board = try await Board(file)
    #expect(try await board.run("list").text == listed)
    #expect(board.session.board.cards.ids == [2, 4, 6, 1, 3])
    #expect(board.session.board.cards[2]?.notes == "Notes with quotes, commas, and ünïcödé")
    // NB: the log's last number, not its count: the flush prunes records older than the log's
    // retention (an hour), and the fixture's are.
    let logged = {
      try await DatabaseQueue(path: file.path).read { db in
        try Int.fetchOne(db, sql: "SELECT coalesce(max(seq), 0) FROM reduxkit_change_log") ?? 0
      }
    }
    let before = try await logged()
    #expect(try await board.run("move 4 Done").text == "moved #4 to Done (saved)")
    #expect(try await board.run("undo").text == "undone: #4 now in Doing (saved)")
    #expect(try await logged() - before == 2)
    try await board.close()

    // Read back in the order the cards had, by position, as any tool reads it.
    let reopened = try await Board(file)
    #expect(try await reopened.run("list").text == listed)
    try await reopened.close()
    let ids = try await DatabaseQueue(path: file.path).read { db in
      try Int.fetchAll(db, sql: "SELECT id FROM cards ORDER BY position")
    }
    #expect(ids == [2, 4, 6, 1, 3])
  }
}

/// A fresh folder for one test's board files, removed when the value is released.
final class TemporaryFolder {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("reduxkit-board-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  func file(_ name: String) -> URL {
    url.appendingPathComponent(name)
  }

  deinit {
    try? FileManager.default.removeItem(at: url)
  }
}
