import Foundation
import GRDB
import Logging
import ReduxKit
import Testing

@testable import BoardCore

/// The board's commands against an in-memory database, as a person would type them.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct BoardSessionTests {
  let database: BoardDatabase
  let session: BoardSession

  init() async throws {
    let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
    database = try BoardDatabase.inMemory(logger: logger)
    session = BoardSession(
      state: try await database.load(), database: database,
      now: { Date(timeIntervalSince1970: 1_800_000_000) }, logger: logger)
  }

  func run(_ line: String) async throws -> Reply {
    let command = try #require(try CommandParser.parse(line))
    return await session.run(command)
  }

  @Test func addMoveAndListShowTheBoardAndEveryChangeIsSaved() async throws {
    #expect(
      try await run(#"add Todo "Write docs""#) == .info(#"added #1 "Write docs" to Todo (saved)"#))
    #expect(try await run("add todo Review").text == #"added #2 "Review" to Todo (saved)"#)
    #expect(try await run("move 1 Done").text == "moved #1 to Done (saved)")
    #expect(
      try await run("list").text == """
        Todo (1)
          #2 Review
        Doing (0)
        Done (1)
          #1 Write docs
        """)
    let saved = try await database.load()
    #expect(saved.cards.map(\.title) == ["Review", "Write docs"])
    #expect(saved.cards[1]?.columnID == 3)
    #expect(saved.columns.map(\.name) == ["Todo", "Doing", "Done"])
  }

  @Test func unknownCardsAndColumnsAreRefusedInWords() async throws {
    #expect(try await run("move 9 Done") == .error("there is no card #9"))
    #expect(
      try await run("add Later x")
        == .error("there is no column 'Later' (columns: Todo, Doing, Done)"))
    _ = try await run("add Todo x")
    #expect(
      try await run("column delete Todo")
        == .error("column 'Todo' still holds 1 card(s): move or delete them first"))
    #expect(try await run("column add todo") == .error("a column named 'todo' already exists"))
  }

  @Test func searchAndStatsReadTheCardsAsTheyAreNow() async throws {
    _ = try await run("add Todo Write docs")
    _ = try await run("add Todo Fix bug")
    _ = try await run("tag 2 urgent")
    #expect(try await run("search DOCS").text == "1 card(s) match 'DOCS':\n  #1 Write docs (Todo)")
    _ = try await run("title 2 Fix docs bug")
    #expect(try await run("search docs").text.hasPrefix("2 card(s) match 'docs':"))
    #expect(
      try await run("stats").text == """
        cards per column:
          Todo: 2
          Doing: 0
          Done: 0
        cards per tag:
          urgent: 1
        """)
  }

  @Test func aDeepLinkIsCheckedBeforeItIsShown() async throws {
    _ = try await run("add Todo Write docs")
    #expect(session.open("card/1").text.hasPrefix("#1 Write docs\n  column:  Todo"))
    #expect(session.open("card/2") == .error("there is no card #2"))
    #expect(
      session.open("board") == .error("'board' is not a link to a card: use card/ID, as in card/42")
    )
  }

  @Test func lineModeRunsEachLineAndCountsTheFailures() async throws {
    var output: [Reply] = []
    let lines = AsyncStream<String> { continuation in
      let script = [
        "add Todo One", "bogus", "", "move 1 Doing", "delete 1 2", "quit", "add Todo Never",
      ]
      for line in script { continuation.yield(line) }
      continuation.finish()
    }
    let failures = await LineMode.run(session, lines: lines) { output.append($0) }
    #expect(failures == 2)
    #expect(
      output == [
        .info(#"added #1 "One" to Todo (saved)"#),
        .error("unknown command 'bogus' (type 'help' for the list)"),
        .info("moved #1 to Doing (saved)"),
        .error("delete: unexpected '2' (usage: delete CARD; one command per line)"),
        .info("bye"),
      ])
    #expect(session.board.cards[1] != nil)
  }

  @Test func aCommandRefusesWordsAfterItsArguments() throws {
    let cases = [
      ("delete 1 2", "delete: unexpected '2' (usage: delete CARD; one command per line)"),
      ("show 3 4", "show: unexpected '4' (usage: show CARD; one command per line)"),
      ("undo 2", "undo: unexpected '2' (usage: undo; one command per line)"),
      ("quit now", "quit: unexpected 'now' (usage: quit; one command per line)"),
      (
        "due 1 2026-01-02 3",
        "due: unexpected '3' (usage: due CARD YYYY-MM-DD|none; one command per line)"
      ),
    ]
    for (line, message) in cases {
      #expect(throws: CommandError.self, "\(line)") { try CommandParser.parse(line) }
      do {
        _ = try CommandParser.parse(line)
      } catch {
        #expect("\(error)" == message)
      }
    }
    #expect(try CommandParser.parse("delete 1") == .delete(card: 1))
    #expect(try CommandParser.parse("stats") == .stats)
  }

  @Test func undoAndRedoSayWhatTheyRestored() async throws {
    _ = try await run("add Todo One")
    _ = try await run("add Todo Two")
    _ = try await run("move 1 Done")
    #expect(try await run("undo").text == "undone: #1 now in Todo (saved)")
    #expect(try await run("undo").text == #"undone: #2 "Two" removed (saved)"#)
    #expect(try await run("redo").text == #"redone: #2 "Two" restored (saved)"#)
    _ = try await run("title 2 Second")
    #expect(try await run("undo").text == #"undone: #2 "Two" edited (saved)"#)
  }

  @Test func theLineModeNoteSaysWhyWhenOneEndIsATerminal() {
    #expect(
      BoardLauncher.lineModeNote(
        isInputTerminal: true, isOutputTerminal: false, forcesLineMode: false)
        == "board: line mode, because standard output is not a terminal (the full screen needs "
        + "both); type help for the commands")
    #expect(
      BoardLauncher.lineModeNote(
        isInputTerminal: false, isOutputTerminal: true, forcesLineMode: false)
        == "board: line mode, because standard input is not a terminal (the full screen needs both)"
    )
    // NB: a script (neither end a terminal), --lines, and the full screen need no note.
    #expect(
      BoardLauncher.lineModeNote(
        isInputTerminal: false, isOutputTerminal: false, forcesLineMode: false)
        == nil)
    #expect(
      BoardLauncher.lineModeNote(
        isInputTerminal: true, isOutputTerminal: false, forcesLineMode: true)
        == nil)
    #expect(
      BoardLauncher.lineModeNote(
        isInputTerminal: true, isOutputTerminal: true, forcesLineMode: false)
        == nil)
  }

  @Test func undoAndRedoAreSavedAndSayWhenThereIsNothingLeft() async throws {
    #expect(try await run("undo") == .info("nothing to undo"))
    _ = try await run("add Todo One")
    _ = try await run("move 1 Done")
    #expect(try await run("undo").text == "undone: #1 now in Todo (saved)")
    #expect(try await database.load().cards[1]?.columnID == 1)
    #expect(try await run("search one").text == "1 card(s) match 'one':\n  #1 One (Todo)")
    #expect(try await run("redo").text == "redone: #1 now in Done (saved)")
    #expect(try await database.load().cards[1]?.columnID == 3)
    #expect(try await run("redo") == .info("nothing to redo"))
  }

  @Test func undoingOneMoveWritesThatOneCardWhateverTheBoardsLength() async throws {
    for number in 1...300 { _ = try await run("add Todo Card\(number)") }
    // NB: the log's last number: its records, numbered without gaps, one per row written.
    let logged = { [database] in
      try await database.database.writer.read { db in
        try Int.fetchOne(db, sql: "SELECT coalesce(max(seq), 0) FROM reduxkit_change_log") ?? 0
      }
    }
    let before = try await logged()
    #expect(try await run("move 20 Done").text == "moved #20 to Done (saved)")
    #expect(try await run("undo").text == "undone: #20 now in Todo (saved)")
    // NB: one row for the move, one for its undo: the 280 cards after #20 are not written.
    #expect(try await logged() - before == 2)
    let saved = try await database.load()
    #expect(saved.cards.ids == Array(1...300))
    #expect(try await run("redo").text == "redone: #20 now in Done (saved)")
    #expect(try await logged() - before == 3)
    #expect(try await database.load().cards.ids == Array(1...19) + Array(21...300) + [20])
  }

  @Test func theDefaultFileIsUnderXDGDataHomeElseHomesLocalShare() {
    // What the README's `sqlite3 ~/.local/share/reduxkit-board/board.sqlite` relies on: the
    // shell's `~` is HOME.
    #expect(
      BoardDatabase.defaultPath(environment: ["HOME": "/home/ada"])
        == "/home/ada/.local/share/reduxkit-board/board.sqlite")
    #expect(
      BoardDatabase.defaultPath(environment: ["HOME": "/home/ada", "XDG_DATA_HOME": "/data"])
        == "/data/reduxkit-board/board.sqlite")
    #expect(
      BoardDatabase.defaultPath(environment: ["HOME": "/home/ada", "XDG_DATA_HOME": ""])
        == "/home/ada/.local/share/reduxkit-board/board.sqlite")
  }
}
