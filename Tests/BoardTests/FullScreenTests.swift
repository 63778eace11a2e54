import Foundation
import Logging
import ReduxCoreTesting
import ReduxKit
import TerminalIO
import Testing

@testable import BoardCore

/// The full-screen board driven by keys, as a person would press them, against an in-memory
/// database; frames read as text.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct FullScreenTests {
  let database: BoardDatabase
  let session: BoardSession
  let clock = ManualClock()
  let navigation: BoardNavigation

  init() async throws {
    let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
    database = try BoardDatabase.inMemory(logger: logger)
    session = BoardSession(
      state: try await database.load(), database: database,
      now: { Date(timeIntervalSince1970: 1_800_000_000) }, logger: logger)
    navigation = BoardNavigation(session: session, clock: clock, logger: logger)
  }

  func press(_ keys: Key...) async {
    for key in keys { await navigation.handle(key) }
  }

  func type(_ text: String) async {
    for character in text { await navigation.handle(.character(character)) }
  }

  func screen(_ size: TerminalSize = TerminalSize(columns: 100, rows: 20)) -> [String] {
    BoardFrame.frame(
      of: navigation.top, root: navigation.root.state, session: session, size: size
    ).lines.map { String($0.text.reversed().drop { $0 == " " }.reversed()) }
  }

  func addCard(_ title: String) async {
    await press(.character("n"))
    await type(title)
    await press(.enter)
  }

  @Test func cardsAreAddedMovedAndUndoneWithKeys() async throws {
    await addCard("Write docs")
    await addCard("Fix bug")
    #expect(screen()[2].split(separator: " ") == ["Todo", "(2)", "Doing", "(0)", "Done", "(0)"])
    #expect(screen()[3...4] == [" #1 Write docs", " #2 Fix bug"])
    #expect(screen()[18].hasPrefix(#" added #2 "Fix bug" to Todo"#))

    await press(.character("m"))  // the card just added is selected
    #expect(screen()[18].hasPrefix(" move #2 to:"))
    await press(.escape, .up, .character("m"))
    #expect(screen()[18].hasPrefix(" move #1 to: 1 Todo  2 Doing  3 Done"))
    await press(.character("3"))
    #expect(session.board.cards[1]?.columnID == 3)
    #expect(screen()[18].hasPrefix(" moved #1 to Done"))

    await press(.character("u"))
    #expect(session.board.cards[1]?.columnID == 1)
    #expect(screen()[18].hasPrefix(" undone"))
    await press(.character("r"))
    #expect(session.board.cards[1]?.columnID == 3)

    try await database.persistence.flush()
    let saved = try await database.load()
    #expect(saved.cards.map(\.title) == ["Fix bug", "Write docs"])
    #expect(saved.cards[1]?.columnID == 3)
  }

  @Test func theLastRefusalStaysOnTheStatusLineAfterLaterSuccesses() async throws {
    await session.run(.move(card: 9, column: "Done"), waitsForSave: false)
    #expect(screen()[18].hasPrefix(" error: there is no card #9"))
    await addCard("Write docs")
    #expect(
      screen()[18].hasPrefix(#" added #1 "Write docs" to Todo · last refused: there is no card #9"#)
    )
  }

  @Test func deletingAsksFirstAndAnyOtherKeyKeepsTheCard() async throws {
    await addCard("Keep me")
    await press(.character("d"))
    #expect(screen()[18].hasPrefix(#" delete #1 "Keep me"? y deletes"#))
    await press(.character("n"))
    #expect(session.board.cards[1] != nil)
    await press(.character("d"), .character("y"))
    #expect(session.board.cards[1] == nil)
    #expect(screen()[18].hasPrefix(#" deleted #1 "Keep me""#))
  }

  @Test func theEditFormSavesEveryFieldAsOneUndoStepAndRefusesABadDate() async throws {
    await addCard("Write docs")
    await press(.character("e"))
    #expect(navigation.top.isForm)
    await press(.tab)
    await type("for 1.0")
    await press(.tab)
    await type("docs Urgent")
    await press(.tab)
    await type("2026-02-30")
    await press(.enter)
    #expect(screen().contains("  '2026-02-30' is not a date: use YYYY-MM-DD, or none"))
    for _ in 0..<2 { await press(.backspace) }
    await type("28")
    await press(.enter)
    #expect(navigation.top.isBoard)
    let card = try #require(session.board.cards[1])
    #expect(card.notes == "for 1.0" && card.tags == ["docs", "urgent"])
    #expect(card.due.map(BoardText.day) == "2026-02-28")

    await press(.character("u"))
    #expect(session.board.cards[1]?.notes == "" && session.board.cards[1]?.tags == [])
  }

  @Test func anEmptyTitleKeepsTheFormOpenAndEscapeCancels() async throws {
    await press(.character("n"), .enter)
    #expect(screen().contains("  a card needs a title"))
    await press(.escape)
    #expect(navigation.top.isBoard)
    #expect(session.board.cards.isEmpty)
  }

  @Test func searchRunsOnceTypingPausesAndOpensAResult() async throws {
    await addCard("Write docs")
    await addCard("Fix bug")
    await press(.character("/"))
    let search = try #require(navigation.top.search)
    await type("doc")
    #expect(search.state.query == "doc")
    #expect(search.state.searchedQuery == nil)  // held: typing has not paused

    await clock.advance(by: SearchScreen.debounce)
    await search.waitUntilIdle()
    #expect(search.state.searchedQuery == "doc")
    #expect(search.state.results.map(\.id) == [1])
    #expect(screen()[5] == "  #1 Write docs (Todo)")

    await press(.enter)
    let detail = try #require(navigation.top.detail)
    #expect(detail.state.cardID == 1)
    await press(.escape, .escape)
    #expect(navigation.top.isBoard)
  }

  @Test func aDeepLinkOpensTheCardOnlyIfItExists() async throws {
    await addCard("Write docs")
    #expect(throws: CommandError.noSuchCard(7)) { try navigation.open(DeepLink("card/7")) }
    #expect(navigation.top.isBoard)
    try navigation.open(DeepLink("card/1"))
    let detail = try #require(navigation.top.detail)
    #expect(detail.state.cardID == 1)
    #expect(screen()[2] == "  #1 Write docs")
  }

  @Test func aNarrowTerminalShowsOneColumnAndATinyOneSaysSo() async throws {
    await addCard("Write docs")
    let narrow = screen(TerminalSize(columns: 40, rows: 10))
    #expect(narrow[2] == " ◀ Todo (1) 1/3 ▶")
    #expect(narrow[3] == " #1 Write docs")
    await press(.right)
    #expect(screen(TerminalSize(columns: 40, rows: 10))[2] == " ◀ Doing (0) 2/3 ▶")

    let tiny = screen(TerminalSize(columns: 20, rows: 5))
    #expect(tiny == ["board needs 30x8", "this terminal: 20x5", "widen it, or q"])
  }

  @Test func theLoopRedrawsOnChangesAndStopsOnQuit() async throws {
    let (events, input) = AsyncStream.makeStream(of: TerminalEvent.self)
    var output = ""
    input.yield(.key(.character("n")))
    for character in "Ship it" { input.yield(.key(.character(character))) }
    input.yield(.key(.enter))
    input.yield(.resize(TerminalSize(columns: 60, rows: 12)))
    input.yield(.key(.character("q")))
    await FullScreenMode.run(
      navigation, session: session, events: events, size: TerminalSize(columns: 80, rows: 12)
    ) { output += $0 }
    #expect(session.board.cards.map(\.title) == ["Ship it"])
    #expect(output.contains("Ship it"))
    // NB: a resize erases the screen and draws every row again.
    #expect(output.components(separatedBy: "\u{1B}[2J").count == 3)
  }
}

extension BoardScreenModel {
  var isBoard: Bool { if case .board = self { true } else { false } }
  var isForm: Bool { if case .form = self { true } else { false } }
  var search: ViewModelOf<SearchScreen>? {
    if case .search(let model) = self { model } else { nil }
  }
  var detail: ViewModelOf<CardDetailScreen>? {
    if case .detail(let model) = self { model } else { nil }
  }
}
