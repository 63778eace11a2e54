import EntityTracking
import Foundation
import GRDB
import Persistence
import PersistenceSQLite

/// The persistence contenders, each persisting the same rows in one transaction of a WAL
/// database, run in one process:
///
/// - `PersistenceContenders <contender> <rows>` runs one contender (or `setup`), for
///   `Scripts/persistence-instructions.sh` to count its instructions under callgrind at two
///   sizes. Every contender first does the same setup (``Setup``: the rows, an `EntityStore`
///   holding them after the app's reduces, the database), then its own work; the `setup`
///   contender does the setup alone, so that (Ir(c) − Ir(setup)) at two sizes gives the work
///   per row, without start-up, setup or teardown.
/// - `PersistenceContenders interleaved <rounds> <rows>` times the work of every contender in
///   each round (not the setup), in an order rotated from round to round, and prints the
///   median of the per-round ratios.
///
/// Contenders:
/// - `persistence`: what an app pays for PersistenceSQLite: the rows arrive in ``drains``
///   reduces, each followed by `afterReduce` (the drains), then one `flush()`.
/// - `grdb-jsonencoder`: the table shape of ReduxKit before typed columns (`id` primary key
///   without a type, a JSON blob), filled by a hand-written GRDB prepared upsert of each row's
///   `JSONEncoder` output.
/// - `grdb-json`: the same, the JSON built by hand as a `String` (slower than `JSONEncoder`).
/// - `grdb-columns`: a hand-written table of typed columns (`id INTEGER PRIMARY KEY`, one column
///   per field), filled by a prepared upsert: what a GRDB user writes by hand for the same
///   columns an `EntityTable` stores, the baseline of the target.
/// - `persistence-update`: every row already stored and loaded (``prefilled(_:)``, the setup
///   of `setup-update`), each changed once in ``drains`` reduces, drained and flushed: a flush
///   of updates, where each row is written at the version it was loaded at (the conflict check).
///
/// Hydration (`PersistenceContenders hydration <rounds> <rows>` times them interleaved; each
/// counted against `setup-load`, which stores the rows and loads nothing):
/// - `load`: `SQLiteDatabase.load(_:)` of the table: the rows decoded as entities in order of
///   position, their versions and positions recorded, a store made.
/// - `grdb-rows`: the same `SELECT` fetched as GRDB `Row`s, nothing decoded: the baseline of
///   the target (load <= 2x).
/// - `grdb-decode`: the same rows made `Card`s by hand (typed reads by column index), with
///   each row's version and position kept in dictionaries as a load keeps them.
@main
enum PersistenceContenders {
  static let contenders = ["persistence", "grdb-json", "grdb-jsonencoder", "grdb-columns"]
  static let hydrationContenders = ["load", "grdb-rows", "grdb-decode"]
  /// The reduces the rows of the `persistence` contender arrive in, each drained by
  /// `afterReduce`.
  static let drains = 10

  static func main() {
    let arguments = CommandLine.arguments
    let usage =
      "usage: PersistenceContenders <contender> <rows> | interleaved <rounds> <rows> | hydration <rounds> <rows>"
    let numbers = arguments.dropFirst(2).compactMap { Int($0) }.filter { $0 > 0 }
    guard arguments.count >= 3, numbers.count == arguments.count - 2 else { fatalError(usage) }
    let mode = arguments[1]
    Task { @MainActor in
      do {
        if mode == "interleaved", numbers.count == 2 {
          try await interleaved(rounds: numbers[0], rows: numbers[1])
        } else if mode == "hydration", numbers.count == 2 {
          try await hydration(rounds: numbers[0], rows: numbers[1])
        } else if numbers.count == 1 {
          let setup = try Setup(rows: numbers[0])
          defer { setup.remove() }
          _ = try await run(mode, setup)
        } else {
          fatalError(usage)
        }
      } catch {
        fatalError("\(mode): \(error)")
      }
      exit(0)
    }
    // NB: a run loop rather than an async main: valgrind 3.19 crashes in the `sigsuspend` of
    // libdispatch's `dispatch_main`, which an async main parks the main thread in.
    RunLoop.main.run()
  }

  /// Runs the work of `contender` on `setup` and returns how long it took (the work only).
  @MainActor
  static func run(_ contender: String, _ setup: Setup) async throws -> Duration {
    switch contender {
    case "setup":
      blackHole(setup.reduced())
      return .zero
    case "persistence": return try await persistence(setup).all
    case "grdb-json":
      return try await handwritten(setup, table: "json") { card in card.handwrittenJSON }
    case "grdb-jsonencoder":
      let encoder = JSONEncoder()
      return try await handwritten(setup, table: "json") { card in
        try encoder.encode(card).databaseValue
      }
    case "grdb-columns": return try await columns(setup)
    case "setup-update":
      blackHole(try await prefilled(setup))
      return .zero
    case "persistence-update": return try await persistenceUpdate(setup)
    case "setup-load":
      try await stored(setup)
      return .zero
    case "load", "grdb-rows", "grdb-decode":
      try await stored(setup)
      return try await hydrate(contender, setup)
    default: fatalError("unknown contender \(contender); known: \(contenders)")
    }
  }

  /// The middleware's drains and its flush: `afterReduce` after each of ``drains`` reduces,
  /// then `flush()`. Only the middleware's calls are timed (all of them, and the flush
  /// alone); the reduces (the app's work, done by every contender's setup too) are not.
  @MainActor
  static func persistence(_ setup: Setup) async throws -> (all: Duration, flush: Duration) {
    let persistence = PersistenceMiddleware<AppState>(
      database: setup.database,
      writers: [StateWriter(keyPath: \.cards, table: cardTable, database: setup.database)])
    let clock = ContinuousClock()
    var elapsed = Duration.zero
    var state = AppState()
    for chunk in setup.chunks {
      state.cards.upsert(contentsOf: setup.cards[chunk])
      let start = clock.now
      persistence.afterReduce(state: &state)
      elapsed += clock.now - start
    }
    let start = clock.now
    try await persistence.flush()
    let flush = clock.now - start
    elapsed += flush
    try await persistence.shutdown()
    let stored = try await setup.database.writer.read { db in
      try Int.fetchOne(db, sql: "SELECT count(*) FROM cards")
    }
    precondition(stored == setup.cards.count, "rows lost: \(stored ?? 0)")
    return (elapsed, flush)
  }

  /// The rows stored (one flush of a middleware of their own) and loaded back, as an app
  /// finds them at its start: the setup of `persistence-update`.
  @MainActor
  static func prefilled(_ setup: Setup) async throws -> AppState {
    try await stored(setup)
    return AppState(cards: try await setup.database.load(cardTable))
  }

  /// The rows stored by one flush of a middleware of their own, nothing loaded: the setup of
  /// the hydration contenders.
  @MainActor
  static func stored(_ setup: Setup) async throws {
    let filling = PersistenceMiddleware<AppState>(
      database: setup.database,
      writers: [StateWriter(keyPath: \.cards, table: cardTable, database: setup.database)])
    var state = setup.reduced()
    filling.afterReduce(state: &state)
    try await filling.shutdown()
  }

  /// Reads the stored rows as `contender` does (see the hydration contenders above), checks
  /// that it read them all, and returns how long it took.
  @MainActor
  static func hydrate(_ contender: String, _ setup: Setup) async throws -> Duration {
    // NB: the columns and the order `EntityTable`'s load reads.
    let sql = "SELECT * FROM cards ORDER BY position, rowid"
    let start = ContinuousClock.now
    let read: Int
    switch contender {
    case "load":
      let store = try await setup.database.load(cardTable)
      read = store.count
      blackHole(store)
    case "grdb-rows":
      // NB: read on this thread: GRDB's `Row` is not `Sendable`, so it cannot come back from an
      // async read (the hop is a few microseconds of the whole read).
      let rows = try setup.database.writer.read { db in try Row.fetchAll(db, sql: sql) }
      read = rows.count
      blackHole(rows)
    default:
      let (cards, versions, positions) = try await setup.database.writer.read { db in
        var cards: [Card] = []
        var versions: [Int: Int64] = [:]
        var positions: [Int: Double] = [:]
        let statement = try db.makeStatement(sql: sql)
        let columns = statement.columnNames
        let rows = try Row.fetchCursor(statement)
        guard
          let id = columns.firstIndex(of: "id"), let title = columns.firstIndex(of: "title"),
          let done = columns.firstIndex(of: "done"),
          let sortIndex = columns.firstIndex(of: "sortIndex"),
          let version = columns.firstIndex(of: "version"),
          let position = columns.firstIndex(of: "position")
        else { preconditionFailure("the cards table lacks a column: \(columns)") }
        while let row = try rows.next() {
          let card = Card(
            id: row[id], title: row[title], done: row[done], sortIndex: row[sortIndex])
          versions[card.id] = row[version]
          positions[card.id] = row[position]
          cards.append(card)
        }
        return (cards, versions, positions)
      }
      read = cards.count
      blackHole((cards, versions, positions))
    }
    let elapsed = ContinuousClock.now - start
    precondition(
      read == setup.cards.count, "\(contender) read \(read) of \(setup.cards.count) rows")
    return elapsed
  }

  /// Times the hydration contenders on one stored table per round, in an order rotated each
  /// round, and prints the median of the per-round ratios to a bare `Row` fetch.
  @MainActor
  static func hydration(rounds: Int, rows: Int) async throws {
    var perRound: [[String: Double]] = []
    // NB: a first round, not counted, warms the code and the page cache.
    for round in 0...rounds {
      let setup = try Setup(rows: rows)
      defer { setup.remove() }
      try await stored(setup)
      var figures: [String: Double] = [:]
      let order = hydrationContenders.indices.map {
        hydrationContenders[($0 + round) % hydrationContenders.count]
      }
      for contender in order {
        let elapsed = try await hydrate(contender, setup)
        figures[contender] =
          (Double(elapsed.components.seconds) * 1e9
            + Double(elapsed.components.attoseconds) / 1e9) / Double(rows)
      }
      guard round > 0 else { continue }
      perRound.append(figures)
      let line = hydrationContenders.map { "\($0) \(String(format: "%.0f", figures[$0] ?? 0))" }
      print("round \(round) ns/row: " + line.joined(separator: ", "))
    }
    func median(_ contender: String) -> String {
      // The time of a contender relative to the bare fetch: time(it) / time(grdb-rows).
      let ratios = perRound.map { ($0[contender] ?? 0) / ($0["grdb-rows"] ?? 1) }.sorted()
      return String(
        format: "%@ / grdb-rows = %.2f (rounds: %.2f-%.2f)", contender,
        ratios[ratios.count / 2], ratios.first ?? 0, ratios.last ?? 0)
    }
    print("median of \(rounds) interleaved rounds, \(rows) rows:")
    print("  " + median("load") + "   target <= 2")
    print("  " + median("grdb-decode"))
  }

  /// Every stored row changed once, in ``drains`` reduces: the drains and the flush of the
  /// updates, each at its loaded version.
  @MainActor
  static func persistenceUpdate(_ setup: Setup) async throws -> Duration {
    var state = try await prefilled(setup)
    let persistence = PersistenceMiddleware<AppState>(
      database: setup.database,
      writers: [StateWriter(keyPath: \.cards, table: cardTable, database: setup.database)])
    let clock = ContinuousClock()
    var elapsed = Duration.zero
    for chunk in setup.chunks {
      for card in setup.cards[chunk] { state.cards.modify(card.id) { $0.done.toggle() } }
      let start = clock.now
      persistence.afterReduce(state: &state)
      elapsed += clock.now - start
    }
    let start = clock.now
    try await persistence.flush()
    elapsed += clock.now - start
    try await persistence.shutdown()
    return elapsed
  }

  /// A hand-written prepared upsert of every row's JSON into a table shaped as an
  /// `EntityTable`'s, in one transaction.
  @MainActor
  static func handwritten(
    _ setup: Setup, table: String, json: @escaping @Sendable (Card) throws -> DatabaseValue
  ) async throws -> Duration {
    blackHole(setup.reduced())
    let cards = setup.cards
    let start = ContinuousClock.now
    try await setup.database.writer.write { db in
      let upsert = try db.makeStatement(
        sql: """
          INSERT INTO \(table) (id, data) VALUES (?, ?)
          ON CONFLICT(id) DO UPDATE SET data = excluded.data
          """)
      for card in cards {
        try upsert.execute(arguments: [card.id, try json(card)])
      }
    }
    return ContinuousClock.now - start
  }

  /// A hand-written prepared upsert into a table of typed columns, in one transaction.
  @MainActor
  static func columns(_ setup: Setup) async throws -> Duration {
    blackHole(setup.reduced())
    let cards = setup.cards
    let start = ContinuousClock.now
    try await setup.database.writer.write { db in
      let upsert = try db.makeStatement(
        sql: """
          INSERT INTO columns (id, title, done, sortIndex) VALUES (?, ?, ?, ?)
          ON CONFLICT(id) DO UPDATE SET
            title = excluded.title, done = excluded.done, sortIndex = excluded.sortIndex
          """)
      for card in cards {
        try upsert.execute(arguments: [card.id, card.title, card.done, card.sortIndex])
      }
    }
    return ContinuousClock.now - start
  }

  /// Runs every contender once per round, each on a fresh setup, in an order rotated each
  /// round, and prints each round's ns/row and the median of the per-round ratios.
  @MainActor
  static func interleaved(rounds: Int, rows: Int) async throws {
    var perRound: [[String: Double]] = []
    for round in 0..<rounds {
      var figures: [String: Double] = [:]
      let order = contenders.indices.map { contenders[($0 + round) % contenders.count] }
      for contender in order {
        let setup = try Setup(rows: rows)
        defer { setup.remove() }
        func perRow(_ elapsed: Duration) -> Double {
          (Double(elapsed.components.seconds) * 1e9
            + Double(elapsed.components.attoseconds) / 1e9) / Double(rows)
        }
        if contender == "persistence" {
          let (all, flush) = try await persistence(setup)
          figures[contender] = perRow(all)
          figures["flush alone"] = perRow(flush)
        } else {
          figures[contender] = perRow(try await run(contender, setup))
        }
      }
      perRound.append(figures)
      let line = (contenders + ["flush alone"]).map {
        "\($0) \(String(format: "%.0f", figures[$0] ?? 0))"
      }
      print("round \(round + 1) ns/row: " + line.joined(separator: ", "))
    }
    func median(_ baseline: String, of contender: String = "persistence") -> String {
      // Throughput of PersistenceSQLite relative to the baseline: time(baseline) / time(it).
      let ratios = perRound.map { ($0[baseline] ?? 0) / ($0[contender] ?? 1) }.sorted()
      return String(
        format: "%@ throughput / %@ = %.2f (rounds: %.2f-%.2f)", contender, baseline,
        ratios[ratios.count / 2], ratios.first ?? 0, ratios.last ?? 0)
    }
    print("median of \(rounds) interleaved rounds (drains and flush included):")
    print("  " + median("grdb-columns") + "   target >= 0.5")
    print("  " + median("grdb-columns", of: "flush alone") + "   target >= 0.8")
    print("  " + median("grdb-jsonencoder"))
    print("  " + median("grdb-json"))
  }
}

@inline(never)
func blackHole<T>(_ value: T) {}

// MARK: - Fixtures

/// A typical app entity: an integer id, a title, a flag and a sort index.
struct Card: Codable, Identifiable, Equatable, Sendable {
  let id: Int
  var title: String
  var done: Bool
  var sortIndex: Int

  /// The JSON `JSONEncoder` writes for the card, written by hand: what an app that stores
  /// JSON without an encoder pays.
  var handwrittenJSON: DatabaseValue {
    var json = "{\"id\":\(id),\"title\":\""
    for scalar in title.unicodeScalars {
      switch scalar {
      case "\"": json += "\\\""
      case "\\": json += "\\\\"
      case "/": json += "\\/"
      case _ where scalar.value < 0x20:
        json += "\\u00" + String(scalar.value, radix: 16).leftPadded(to: 2)
      default: json.unicodeScalars.append(scalar)
      }
    }
    json += "\",\"done\":\(done),\"sortIndex\":\(sortIndex)}"
    return Data(json.utf8).databaseValue
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    String(repeating: "0", count: max(0, width - count)) + self
  }
}

struct AppState {
  var cards = EntityStore<Card>()
}

let cardTable = EntityTable<Card>("cards")

/// What every contender starts from: the rows, and a fresh WAL database holding the entity
/// table and the hand-written tables, all empty.
struct Setup {
  let cards: [Card]
  let chunks: [Range<Int>]
  let database: SQLiteDatabase
  let path: String

  init(rows: Int) throws {
    cards = (0..<rows).map {
      Card(id: $0, title: "card number \($0) with a long title", done: $0 % 3 == 0, sortIndex: $0)
    }
    let size = (rows + PersistenceContenders.drains - 1) / PersistenceContenders.drains
    chunks = stride(from: 0, to: rows, by: size).map { $0..<min($0 + size, rows) }
    path =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("reduxkit-contenders-\(UUID().uuidString).sqlite").path
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in
      try cardTable.create(in: db)
      // NB: the shape `EntityTable.create` makes.
      try db.execute(sql: "CREATE TABLE json (id NOT NULL PRIMARY KEY, data BLOB NOT NULL)")
      try db.execute(
        sql:
          "CREATE TABLE columns (id INTEGER PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL, sortIndex INTEGER NOT NULL)"
      )
    }
    database = try SQLiteDatabase(path: path, migrator: migrator)
  }

  /// The state after the app's reduces, undrained: every contender builds it (untimed), so
  /// that the `setup` contender's count covers it; only `persistence` drains it, between the
  /// reduces.
  func reduced() -> AppState {
    var state = AppState()
    for chunk in chunks { state.cards.upsert(contentsOf: cards[chunk]) }
    return state
  }

  func remove() {
    do {
      try database.close()
      for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix)
      {
        try FileManager.default.removeItem(atPath: path + suffix)
      }
    } catch {
      print("could not remove \(path): \(error)")
    }
  }
}
