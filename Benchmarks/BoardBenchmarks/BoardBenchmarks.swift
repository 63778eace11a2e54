import BoardCore
import Foundation
import GRDB
import Logging
import Observation
import ReduxKit
import TerminalIO

/// The board on a large SQLite file, timed in one process: `swift run -c release BoardBenchmarks`
/// (arguments, all optional: `[cards] [rounds] [moves] [queries]`, default 10000 21 500 15).
///
/// - Start-up to first frame: `board`'s start in full screen (open the file, read its first
///   screenful, draw the first 120x40 frame to bytes: what a person sees first) against a bare
///   GRDB read of the card rows (open a `DatabaseQueue`, `SELECT` the card columns `ORDER BY
///   position`, fetch every `Row`), interleaved round by round in an order that alternates, so
///   that the machine's load affects both alike. A third contender also makes each row a
///   ``Card`` by hand (typed column reads, the tags' JSON decoded), as a GRDB user would write
///   it. The board's start goes on, timed too: the whole board loaded (hydrated), the session
///   and screens made, and the loaded board's frame drawn (the board then takes keys). Closing
///   is outside the timed region.
/// - Keystroke to frame: on the loaded board, `m` then `3` moves the first card of Todo to Done,
///   then (after selecting Done, untimed) `m` then `1` moves the first card of Done to Todo, so
///   the columns keep their size. Each key is timed from `BoardNavigation.handle(_:)` to the
///   frame's bytes, drawn as `FullScreenMode` draws it (observation tracking, the renderer's
///   diff against the last frame). Persistence flushes (debounced on the main actor) happen
///   during the run, as they do for a person.
///   Then the selection keys on the loaded board (↓, Page Down, `G`, `g`, each timed the same
///   way), and a 100,000-character paste into the new-card form followed by one typed key
///   (the key after a paste costs what any key costs).
/// - Search: each query once computed (a cache miss: what a search keystroke costs once typing
///   pauses), then repeated while fresh (served from the `QueryClient` cache).
/// - Undo of a move: a card from the middle of Todo moved to Done (`m`, `3`) and saved, then
///   `u`: the time from the key to "saved" (the flush committed), and the rows the undo wrote
///   (records in the file's change log).
@main
@MainActor
enum BoardBenchmarks {
  static let size = TerminalSize(columns: 120, rows: 40)
  static let logger = Logger(label: "board-benchmarks") { _ in SwiftLogNoOpLogHandler() }

  static func main() async throws {
    let numbers = CommandLine.arguments.dropFirst().map { Int($0) ?? 0 }
    guard numbers.allSatisfy({ $0 > 0 }) else {
      fatalError("usage: BoardBenchmarks [cards] [rounds] [moves] [queries]")
    }
    let cards = numbers.count > 0 ? numbers[0] : 10_000
    let rounds = numbers.count > 1 ? numbers[1] : 21
    let moves = numbers.count > 2 ? numbers[2] : 500
    let queries = numbers.count > 3 ? numbers[3] : 15

    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("board-benchmarks-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("board.sqlite").path

    try await seed(path: path, cards: cards)
    print("board benchmarks: \(cards) cards, a \(size) terminal")
    try await startUp(path: path, cards: cards, rounds: rounds)
    try await keystrokesAndSearch(path: path, moves: moves, queries: queries)
    try await undoOfAMove(path: path, rounds: rounds)
  }

  // MARK: - Seed

  /// Words the titles, notes and tags are made of; search queries pick from them.
  static let words = [
    "login", "docs", "release", "cache", "layout", "search", "undo", "export", "import",
    "sync", "crash", "theme", "onboarding", "billing", "profile", "keyboard", "network",
  ]
  static let tags = ["bug", "feature", "chore", "ui", "perf"]

  /// Writes `count` cards over the default columns through the board's own tables
  /// (`EntityTable`'s rows, one transaction per table).
  static func seed(path: String, cards count: Int) async throws {
    let database = try BoardDatabase(path: path, logger: logger)
    let columns = Array(try await database.load().columns)
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let cards = (1...count).map { id in
      let word = words[id % words.count]
      let other = words[(id / words.count) % words.count]
      return Card(
        id: id, columnID: columns[id % columns.count].id,
        title: "Card \(id): \(word) \(other) follow-up",
        notes: id % 3 == 0 ? "Check the \(other) path again before the \(word) review." : "",
        tags: id % 4 == 0 ? [tags[id % tags.count], tags[(id / 4) % tags.count]] : [],
        due: id % 5 == 0 ? start.addingTimeInterval(Double(id) * 3600) : nil,
        createdAt: start, updatedAt: start)
    }
    try await database.database.persist(to: BoardDatabase.columns)(columns, [])
    try await database.database.persist(to: BoardDatabase.cards)(cards, [])
    try await database.persistence.shutdown()
    try database.database.close()
  }

  // MARK: - Start-up to first frame

  /// What one start-up round measured, in milliseconds.
  struct StartUpRound {
    var bareRead = 0.0
    var rowsOnly = 0.0
    var firstFrame = 0.0
    var ready = 0.0
    /// The board's start, step by step: ``firstFrameSteps``, then ``readySteps``.
    var steps = [Double](repeating: 0, count: 7)
  }

  static let firstFrameSteps = [
    "open + migrations", "first screenful and its frame",
    "render to bytes",
  ]
  static let readySteps = [
    "load (read, decode, stores)", "session + screens", "frame", "render to bytes",
  ]

  static func startUp(path: String, cards: Int, rounds: Int) async throws {
    // NB: a first round, not counted, warms the page cache and the code.
    var measured: [StartUpRound] = []
    for round in 0...rounds {
      var figures = StartUpRound()
      let contenders = round % 2 == 0 ? [0, 1, 2] : [2, 1, 0]
      for contender in contenders {
        switch contender {
        case 0:
          let (elapsed, read) = try bareRead(path: path, decoding: true)
          precondition(read == cards, "the bare read found \(read) cards")
          figures.bareRead = elapsed
        case 1:
          let (elapsed, read) = try bareRead(path: path, decoding: false)
          precondition(read == cards, "the bare read found \(read) rows")
          figures.rowsOnly = elapsed
        default:
          figures.steps = try await firstFrame(path: path, cards: cards)
          figures.firstFrame = figures.steps.prefix(firstFrameSteps.count).reduce(0, +)
          figures.ready = figures.steps.reduce(0, +)
        }
      }
      if round > 0 { measured.append(figures) }
    }
    let rowsOnly = median(measured.map(\.rowsOnly))
    let firstFrame = median(measured.map(\.firstFrame))
    let ratios = measured.map { $0.firstFrame / $0.rowsOnly }.sorted()
    print("")
    print("start-up to first frame (\(rounds) interleaved rounds, medians)")
    row("A  bare GRDB Row fetch of the card columns", milliseconds(rowsOnly))
    row("   and each row made a Card by hand", milliseconds(median(measured.map(\.bareRead))))
    row("B  board: open, first screenful, first frame", milliseconds(firstFrame))
    for (index, step) in firstFrameSteps.enumerated() {
      row("     \(step)", milliseconds(median(measured.map { $0.steps[index] })))
    }
    row(
      "B / A (ratio of medians; target <= 1.5)",
      String(
        format: "%.2f (per round %.2f-%.2f)", firstFrame / rowsOnly, ratios.first ?? 0,
        ratios.last ?? 0))
    row("C  board ready for keys: B, then", milliseconds(median(measured.map(\.ready))))
    for (index, step) in readySteps.enumerated() {
      let index = firstFrameSteps.count + index
      row("     \(step)", milliseconds(median(measured.map { $0.steps[index] })))
    }
    row(
      "C / A (ratio of medians)",
      String(format: "%.2f", median(measured.map(\.ready)) / rowsOnly))
  }

  /// Opens a `DatabaseQueue` on `path` and fetches every card row's columns, each made a
  /// ``Card`` by hand or kept as GRDB's `Row`; they are freed after the clock stops.
  ///
  /// - Returns: The time taken, in milliseconds, and the number of rows read.
  static func bareRead(path: String, decoding: Bool) throws -> (Double, Int) {
    let table = BoardDatabase.cards.name.quotedDatabaseIdentifier
    let start = ContinuousClock.now
    let queue = try DatabaseQueue(path: path)
    let read = try queue.read { db in
      let sql = """
        SELECT id, columnID, title, notes, tags, due, createdAt, updatedAt
        FROM \(table) ORDER BY position
        """
      guard decoding else { return ([Card](), try Row.fetchAll(db, sql: sql)) }
      let rows = try Row.fetchCursor(db, sql: sql)
      var cards: [Card] = []
      let decoder = JSONDecoder()
      while let row = try rows.next() {
        let tags: String = row[4]
        let due: Double? = row[5]
        cards.append(
          Card(
            id: row[0], columnID: row[1], title: row[2], notes: row[3],
            tags: try decoder.decode([String].self, from: Data(tags.utf8)),
            due: due.map(Date.init(timeIntervalSinceReferenceDate:)),
            createdAt: Date(timeIntervalSinceReferenceDate: row[6]),
            updatedAt: Date(timeIntervalSinceReferenceDate: row[7])))
      }
      return (cards, [Row]())
    }
    let elapsed = milliseconds(since: start)
    try queue.close()
    return (elapsed, decoding ? read.0.count : read.1.count)
  }

  /// What `board` does at start in full screen (`BoardLauncher.launch()`: the first frame from
  /// the first screenful, then the load and `FullScreenMode`'s first draw over it), timed step
  /// by step; then saves nothing (nothing changed) and closes the file, untimed.
  ///
  /// - Returns: The time of each of ``firstFrameSteps`` then ``readySteps``, in milliseconds.
  static func firstFrame(path: String, cards: Int) async throws -> [Double] {
    var times: [Double] = []
    var lap = ContinuousClock.now
    func step() {
      let now = ContinuousClock.now
      times.append(milliseconds(now - lap))
      lap = now
    }
    let database = try BoardDatabase(path: path, logger: logger)
    step()
    guard let first = try await FullScreenMode.firstFrame(of: database, size: size) else {
      fatalError("the board has no columns")
    }
    step()
    var renderer = ScreenRenderer(size: size)
    let firstBytes = renderer.render(first)
    step()
    let state = try await database.load()
    step()
    let session = BoardSession(state: state, database: database, logger: logger)
    let navigation = BoardNavigation(session: session, logger: logger)
    navigation.resized(to: size)
    step()
    let frame = withObservationTracking {
      FullScreenMode.frame(of: navigation, session: session, size: size)
    } onChange: {
    }
    step()
    let bytes = renderer.render(frame)
    step()
    precondition(session.board.cards.count == cards, "hydrated \(session.board.cards.count)")
    precondition(firstBytes.contains("Todo ("), "the first frame shows no board")
    // NB: the loaded board's frame is the first one: nothing is drawn again.
    precondition(bytes.isEmpty, "the loaded board's frame differs from the first")
    try await database.persistence.shutdown()
    try database.database.close()
    return times
  }

  // MARK: - Keystrokes and search

  static func keystrokesAndSearch(path: String, moves: Int, queries: Int) async throws {
    let database = try BoardDatabase(path: path, logger: logger)
    let session = BoardSession(
      state: try await database.load(), database: database, logger: logger)
    let navigation = BoardNavigation(session: session, logger: logger)

    // Search first, on the board as loaded: each query computed once, then served while fresh.
    var computed: [Double] = []
    var cached: [Double] = []
    var hits: [Int] = []
    for index in 0..<queries {
      let query = words[index % words.count] + (index < words.count ? "" : " \(index)")
      var start = ContinuousClock.now
      let first = await session.search(query)
      computed.append(milliseconds(since: start))
      hits.append(first.count)
      for _ in 0..<30 {
        start = ContinuousClock.now
        let again = await session.search(query)
        cached.append(milliseconds(since: start))
        precondition(again.count == first.count, "a cached search differs")
      }
    }

    var renderer = ScreenRenderer(size: size)
    func draw() -> Int {
      let frame = withObservationTracking {
        FullScreenMode.frame(of: navigation, session: session, size: size)
      } onChange: {
      }
      return renderer.render(frame).utf8.count
    }
    /// - Returns: The time from the key to its frame's bytes, and the part the key's handling
    ///   took (the rest is the frame).
    func timedKey(_ key: Key) async -> (total: Double, handling: Double) {
      let start = ContinuousClock.now
      await navigation.handle(key)
      let handled = ContinuousClock.now
      let written = draw()
      let end = ContinuousClock.now
      precondition(written > 0, "key \(key) drew nothing new")
      return (milliseconds(end - start), milliseconds(handled - start))
    }
    guard let done = session.board.columns.last?.id else { fatalError("the board has no column") }
    navigation.resized(to: size)
    _ = draw()
    var prompts: [(total: Double, handling: Double)] = []
    var moved: [(total: Double, handling: Double)] = []
    for sample in 0..<moves {
      let isBack = sample % 2 == 1
      // NB: the selection moves untimed: Todo for `m 3`, Done for `m 1`; its frame is drawn
      // too, so each timed frame is a diff against the frame a person saw before the key.
      for _ in 0..<2 { await navigation.handle(isBack ? .right : .left) }
      _ = draw()
      let inDone = session.board.cards.count(where: { $0.columnID == done })
      prompts.append(await timedKey(.character("m")))
      moved.append(await timedKey(.character(isBack ? "1" : "3")))
      let nowInDone = session.board.cards.count(where: { $0.columnID == done })
      precondition(nowInDone == inDone + (isBack ? -1 : 1), "sample \(sample) moved no card")
    }
    var selections: [(total: Double, handling: Double)] = []
    await navigation.handle(.character("g"))
    _ = draw()
    for sample in 0..<moves {
      let key: Key = [.down, .down, .pageDown, .character("G"), .character("g")][sample % 5]
      selections.append(await timedKey(key))
    }
    await navigation.handle(.character("n"))
    _ = draw()
    let pasted = String(repeating: "pasted text, ", count: 100_000 / 13 + 1).prefix(100_000)
    let paste = await timedKey(.paste(String(pasted)))
    let afterPaste = await timedKey(.character("x"))
    await navigation.handle(.escape)

    let flushes = database.persistence.status.lastFlush?.number ?? 0
    try await database.persistence.shutdown()
    try database.database.close()

    print("")
    print("keystroke to frame (\(moves) moves; p50 / p99 / max)")
    row("move key (3 or 1): dispatch, reduce, frame", percentiles(moved.map(\.total)))
    row("  of which the key's handling (p50)", milliseconds(median(moved.map(\.handling))))
    row("m (the move prompt): frame", percentiles(prompts.map(\.total)))
    row("  of which the key's handling (p50)", milliseconds(median(prompts.map(\.handling))))
    row("persistence flushes during the moves", "\(flushes)")
    row("selection keys (↓, PgDn, G, g): frame", percentiles(selections.map(\.total)))
    row("a 100,000-character paste: frame", milliseconds(paste.total))
    row("  the next key typed: frame", milliseconds(afterPaste.total))
    print("")
    print("search (\(queries) queries, \(hits.min() ?? 0)-\(hits.max() ?? 0) hits; medians)")
    row("computed (a keystroke's search; target <= 16 ms)", milliseconds(median(computed)))
    row("cached while fresh (30 repeats each)", milliseconds(median(cached)))
  }

  // MARK: - Undo of a move

  static func undoOfAMove(path: String, rounds: Int) async throws {
    let database = try BoardDatabase(path: path, logger: logger)
    let session = BoardSession(
      state: try await database.load(), database: database, logger: logger)
    let navigation = BoardNavigation(session: session, logger: logger)
    navigation.resized(to: size)
    func logged() async throws -> Int {
      try await database.database.writer.read { db in
        try Int.fetchOne(db, sql: "SELECT coalesce(max(seq), 0) FROM reduxkit_change_log") ?? 0
      }
    }
    var times: [Double] = []
    var rows: [Int] = []
    // NB: a frame drawn after each key, as a person sees one: the selection and its page
    // are the frame's.
    func key(_ key: Key) async {
      await navigation.handle(key)
      _ = FullScreenMode.frame(of: navigation, session: session, size: size)
    }
    _ = FullScreenMode.frame(of: navigation, session: session, size: size)
    for _ in 0..<rounds {
      for _ in 0..<3 { await key(.left) }
      await key(.character("g"))
      for _ in 0..<40 { await key(.pageDown) }
      let ids = session.board.cards.ids
      await key(.character("m"))
      await key(.character("3"))
      try await database.persistence.flush()
      precondition(session.board.cards.ids != ids, "no card moved")
      let before = try await logged()
      let start = ContinuousClock.now
      await navigation.handle(.character("u"))
      try await database.persistence.flush()
      times.append(milliseconds(since: start))
      precondition(session.board.cards.ids == ids, "the undo did not put the card back")
      rows.append(try await logged() - before)
    }
    try await database.persistence.shutdown()
    try database.database.close()
    print("")
    print("undo of a move from the middle of Todo (\(rounds) rounds; medians)")
    row("u to saved (target < 20 ms)", milliseconds(median(times)))
    row("rows written by the undo (target 1)", "\(rows.min() ?? 0)-\(rows.max() ?? 0)")
  }

  // MARK: - Figures

  static func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
  }

  static func milliseconds(since start: ContinuousClock.Instant) -> Double {
    milliseconds(ContinuousClock.now - start)
  }

  static func milliseconds(_ value: Double) -> String {
    value < 0.1 ? String(format: "%.1f µs", value * 1e3) : String(format: "%.2f ms", value)
  }

  static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
  }

  static func percentiles(_ values: [Double]) -> String {
    let sorted = values.sorted()
    let p99 = sorted[Int((Double(sorted.count - 1) * 0.99).rounded())]
    return [median(values), p99, sorted.last ?? 0].map(milliseconds).joined(separator: " / ")
  }

  static func row(_ label: String, _ value: String) {
    print("  " + label.padding(toLength: 52, withPad: " ", startingAt: 0) + value)
  }
}
