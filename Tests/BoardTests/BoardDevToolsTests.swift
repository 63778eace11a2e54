import Foundation
import Logging
import ReduxCoreTesting
import ReduxKit
import TerminalIO
import Testing

@testable import BoardCore

/// The board recorded by DevTools (`board --record`, `--devtools`): its session file replays
/// into a fresh store, a seeded bug is found at the action that shows it, and time travel shows
/// past boards live, refuses changes meanwhile, and saves a recomputed board once resumed.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct BoardDevToolsTests {
  let database: BoardDatabase
  let session: BoardSession
  let sessionURL: URL
  let recorder: BoardRecorder

  init() async throws {
    let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
    database = try BoardDatabase.inMemory(logger: logger)
    sessionURL = FileManager.default.temporaryDirectory
      .appendingPathComponent("board-session-\(UUID().uuidString).jsonl")
    recorder = try BoardDevTools(sessionPath: sessionURL.path, serve: nil).makeRecorder()
    session = BoardSession(
      state: try await database.load(), database: database,
      now: { Date(timeIntervalSince1970: 1_800_000_000) }, recorder: recorder, logger: logger)
  }

  @discardableResult
  func run(_ line: String) async throws -> Reply {
    let command = try #require(try CommandParser.parse(line))
    let reply = await session.run(command)
    try #require(!reply.isError, "\(line): \(reply.text)")
    return reply
  }

  /// Eight changes, one of each kind, undo and redo included; #6 moves a tagged card.
  func recordADay() async throws -> DevToolsSession {
    try await run("add Todo Write docs")  // #1
    try await run("add Todo Fix the login bug")  // #2
    try await run("move 1 Doing")  // #3: a card without tags
    try await run("tag 2 urgent backend")  // #4
    try await run("column add Review")  // #5
    try await run("move 2 Review")  // #6: a card with tags
    try await run("undo")  // #7
    try await run("redo")  // #8
    recorder.flush()
    return try DevToolsSession(contentsOf: sessionURL)
  }

  func replay(_ recorded: DevToolsSession, reducers: [AnyReducer<BoardState, BoardAction>])
    async throws -> DevToolsReplay.Report
  {
    try await DevToolsReplay.run(
      recorded, as: BoardAction.self,
      makeStore: { start in
        let snapshot = try #require(try start?.decode(BoardState.Snapshot.self))
        return Store(initialState: BoardState(restoring: snapshot), reducers: reducers)
      },
      snapshot: { $0.undoSnapshot })
  }

  @Test func aRecordedSessionReplaysIntoAFreshStoreWithTheSameBoards() async throws {
    let recorded = try await recordADay()
    #expect(recorded.header.app == "board")
    #expect(
      recorded.records.map(\.name) == [
        "@start", "addCard", "addCard", "moveCard", "editCard", "addColumn", "moveCard", "undo",
        "redo",
      ])
    let report = try await replay(recorded, reducers: BoardSession.replayedReducers)
    #expect(report.replayed == 8)
    #expect(report.divergence == nil)
  }

  @Test func eachRecordSaysWhatItTouchedInTheBoardsWords() async throws {
    let recorded = try await recordADay()
    // NB: the session file carries them, and so do the rows a page reads.
    #expect(
      recorded.records.map(\.summary) == [
        nil, #"#1 "Write docs" in column 1"#, #"#2 "Fix the login bug" in column 1"#,
        "#1 → column 2", "#2: tags urgent backend", #"column 4 "Review""#, "#2 → column 4",
        nil, nil,
      ])
    #expect(recorder.summaries(after: 2, limit: 1).map(\.summary) == ["#1 → column 2"])
    #expect(recorder.record(at: 6)?.summary == "#2 → column 4")
  }

  @Test func aSeededBugIsFoundAtTheFirstActionWhoseBoardDiffers() async throws {
    let recorded = try await recordADay()
    // The bug: a move drops the card's tags. #3 moves a card without tags, so its board is
    // the same; #6 is the first whose board differs.
    let movesDropTags = AnyReducer<BoardState, BoardAction>(id: "seededBug") { context in
      let (state, action) = context.args
      if case .moveCard(let id, _, _) = action { state.cards.modify(id) { $0.tags = [] } }
    }
    let report = try await replay(
      recorded, reducers: BoardSession.replayedReducers + [movesDropTags])
    let divergence = try #require(report.divergence)
    #expect(divergence.index == 6)
    #expect(divergence.name == "moveCard")
    #expect(divergence.diff.changes.map(\.path) == ["cards[id=2].tags.0", "cards[id=2].tags.1"])
  }

  @Test func aJumpShowsAPastBoardRefusesChangesAndResumeBringsThePresentBack() async throws {
    _ = try await recordADay()
    let travel = try #require(session.travel)
    try travel.jump(to: 2)
    #expect(session.board.cards.map(\.title) == ["Write docs", "Fix the login bug"])
    #expect(session.board.columns.map(\.name) == ["Todo", "Doing", "Done"])
    let refused = await session.run(.add(column: "Todo", title: "lost?"))
    #expect(refused == .error(CommandError.pausedByDevTools(at: 2).description))
    try travel.step(by: 1)
    #expect(session.board.cards[1]?.columnID == 2)
    travel.resume()
    #expect(session.board.columns.map(\.name) == ["Todo", "Doing", "Done", "Review"])
    #expect(session.board.cards[2]?.tags == ["urgent", "backend"])
    try await run("add Todo after the travel")
    #expect(
      try await database.load().cards.map(\.title) == [
        "Write docs", "Fix the login bug", "after the travel",
      ])
  }

  @Test func aSkippedActionIsRecomputedAndTheBoardWithoutItIsSavedAsSoonAsResumed() async throws {
    _ = try await recordADay()
    let travel = try #require(session.travel)
    try await travel.skip(4)  // the tags
    #expect(session.board.cards[2]?.tags == [])
    #expect(session.board.cards[2]?.columnID == 4)
    travel.resume()
    // NB: no other action: the resume's own pass hands the recomputed board to persistence
    // (the file kept the skipped tags until the app's next change, while it said "saved").
    await session.store.waitUntilActionsProcessed()
    #expect(database.persistence.status.pendingCount > 0)
    try await database.persistence.flush()
    #expect(try await database.load().cards[2]?.tags == [])
    try await run("add Todo next")
    let saved = try await database.load()
    #expect(saved.cards[2]?.tags == [])
    #expect(saved.cards.map(\.title) == ["Write docs", "Fix the login bug", "next"])
    // Undo walks the recomputed timeline: the skipped tags never come back.
    try await run("undo")  // the card just added
    #expect(session.board.cards.map(\.title) == ["Write docs", "Fix the login bug"])
    try await run("undo")  // #8, the redo of the move
    try await run("undo")  // #6, the move into Review
    #expect(session.board.cards[2]?.columnID == 1)
    #expect(session.board.cards[2]?.tags == [])
  }

  @Test func aSessionWithASkipReplaysToTheBoardTheAppWentOnWith() async throws {
    _ = try await recordADay()
    let travel = try #require(session.travel)
    try await travel.skip(4)  // the tags
    travel.resume()
    try await run("add Todo after the skip")  // an add, on the board without the tags
    await session.store.waitUntilActionsProcessed()
    recorder.flush()
    let recorded = try DevToolsSession(contentsOf: sessionURL)
    let resumed = try #require(recorded.records.first { $0.kind == .travel })
    #expect(resumed.payload == .array([.number(4)]))
    // NB: without the travel's record, the replay kept the tags and diverged at the first
    // record after the resume.
    let report = try await replay(recorded, reducers: BoardSession.replayedReducers)
    #expect(report.divergence == nil, "\(report.divergence.map(String.init(describing:)) ?? "")")
    #expect(
      try #require(recorded.records.last?.state)
        == (try JSONValue(encoding: session.board.undoSnapshot)))
  }

  @Test func theFullScreenShowsTheTravelledBoardAndSaysItIsPaused() async throws {
    _ = try await recordADay()
    let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
    let navigation = BoardNavigation(session: session, logger: logger)
    func screen() -> [String] {
      FullScreenMode.frame(
        of: navigation, session: session, size: TerminalSize(columns: 100, rows: 12)
      ).lines.map { String($0.text.reversed().drop { $0 == " " }.reversed()) }
    }
    session.devToolsPage = "DevTools: http://127.0.0.1:9090/"
    #expect(screen()[0].hasSuffix("DevTools: http://127.0.0.1:9090/"))
    #expect(screen()[2].split(separator: " ").prefix(4) == ["Todo", "(0)", "Doing", "(1)"])
    try #require(session.travel).jump(to: 1)
    #expect(screen()[2].split(separator: " ") == ["Todo", "(1)", "Doing", "(0)", "Done", "(0)"])
    #expect(screen()[3] == " #1 Write docs")
    #expect(screen()[10].hasSuffix("DevTools: the board after #1, paused"))
    try #require(session.travel).resume()
    await session.store.waitUntilActionsProcessed()
    try await database.persistence.flush()
    #expect(screen()[10].hasSuffix("saved (flush #9)"))
  }
}
