import EntityTracking
import Foundation
import Logging
import Persistence
import PersistencePostgres
import PostgresNIO

/// Flush throughput on PostgreSQL: PersistencePostgres against a hand-written postgres-nio
/// batch of the same rows into the same table shape, interleaved in one process against one
/// server (`REDUXKIT_POSTGRES_URL`; `Scripts/postgres-bench.sh` starts a throwaway one).
///
/// `PostgresContenders <rounds> <rows>` runs every contender once per round, in an order
/// rotated from round to round, each on rows new to the table (ids of its own), and prints
/// each round's µs per row and the median of the per-round ratios.
///
/// Contenders:
/// - `persistence`: what an app pays: the rows arrive in ``drains`` reduces, each followed by
///   `afterReduce` (the drains), then one `flush()`: one `INSERT … SELECT FROM UNNEST` of the
///   rows' columns (in a savepoint) that also appends the change log, in one transaction, then
///   the `NOTIFY` that wakes the other instances. The drains and the flush are timed; the
///   reduces are not.
/// - `raw-insert`: one transaction of one `INSERT … SELECT FROM UNNEST` of the rows' columns
///   (one array per column), positions and versions given: a hand-written postgres-nio batch
///   of the same rows, the baseline of the target.
/// - `persistence-update` and `raw-update`: the same rows changed again (the versioned
///   `UPDATE … FROM UNNEST … WHERE version = base`, against a plain `UPDATE … FROM UNNEST`).
///
/// Then the table's rows are loaded back, `PostgresTable`'s load against a hand-written typed
/// read of the same columns, interleaved as many times as there were rounds.
@main
enum PostgresContenders {
  static let drains = 10

  static func main() async throws {
    let numbers = CommandLine.arguments.dropFirst().compactMap { Int($0) }.filter { $0 > 0 }
    guard numbers.count == 2, CommandLine.arguments.count == 3 else {
      fatalError("usage: PostgresContenders <rounds> <rows>")
    }
    guard let url = ProcessInfo.processInfo.environment["REDUXKIT_POSTGRES_URL"] else {
      fatalError("set REDUXKIT_POSTGRES_URL (eval \"$(Scripts/postgres.sh start)\")")
    }
    // NB: a database of its own, dropped at the end: the tables start empty every run.
    let name = "bench_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    let admin = try await connect(url)
    try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: quiet)
    let slash = url.lastIndex(of: "/")!
    try await Bench(url: String(url[..<slash]) + "/" + name)
      .interleaved(rounds: numbers[0], rows: numbers[1])
    try await admin.query(
      PostgresQuery(unsafeSQL: "DROP DATABASE \(name) WITH (FORCE)"), logger: quiet)
    try await admin.close()
  }

  static func connect(_ url: String) async throws -> PostgresConnection {
    let components = URLComponents(string: url)!
    return try await PostgresConnection.connect(
      configuration: .init(
        host: components.host ?? "127.0.0.1", port: components.port ?? 5432,
        username: components.user ?? "", password: components.password,
        database: String(components.path.dropFirst()), tls: .disable),
      id: 1, logger: quiet)
  }
}

/// A typical app entity: an integer id, a title, a flag and a sort index.
struct Card: Codable, Identifiable, Equatable, Sendable {
  let id: Int
  var title: String
  var done: Bool
  var sortIndex: Int
}

struct AppState {
  var cards = EntityStore<Card>()
}

let cardTable = PostgresTable<Card>("cards")
let quiet = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })

@MainActor
final class Bench {
  let database: PostgresBackend
  let persistence: PersistenceMiddleware<AppState>
  let connection: PostgresConnection
  var state = AppState()
  /// The next id: from 10,000,000, so that every id has as many digits as any other, and the
  /// table's text ids sort as their numbers do.
  ///
  /// NB: from 0, the first round's ids (1 to 5 digits) went all over the primary key's index of
  /// `cards`, and every later round's interleaved with them there, while the baseline's table
  /// got ids of one length, each round after the last: its inserts were appends to the index
  /// (about a fifth cheaper on the server at 100,000 rows).
  var nextID = 10_000_000

  init(url: String) async throws {
    database = try await PostgresBackend(
      url: url, instance: "bench",
      migrations: [
        PostgresMigration("bench-v1") { connection in
          try await cardTable.create(on: connection, logger: quiet)
          // NB: the shape `PostgresTable.create` makes: a typed column per property.
          try await connection.query(
            """
            CREATE TABLE raw (
              id text PRIMARY KEY, title text, done boolean, "sortIndex" bigint,
              version bigint NOT NULL,
              position bigint NOT NULL, updated_by text NOT NULL,
              updated_at timestamptz NOT NULL DEFAULT now())
            """, logger: quiet)
          try await connection.query("CREATE INDEX ON raw (position)", logger: quiet)
        }
      ], logger: quiet)
    persistence = PersistenceMiddleware(
      backend: database,
      writers: [StateWriter(keyPath: \.cards, table: cardTable, database: database)],
      logger: quiet)
    connection = try await PostgresContenders.connect(url)
  }

  /// Rows with ids no earlier round used.
  func newCards(_ count: Int) -> [Card] {
    defer { nextID += count }
    return (nextID..<nextID + count).map {
      Card(id: $0, title: "card number \($0) with a long title", done: $0 % 3 == 0, sortIndex: $0)
    }
  }

  func chunks(_ count: Int) -> [Range<Int>] {
    let size = (count + PostgresContenders.drains - 1) / PostgresContenders.drains
    return stride(from: 0, to: count, by: size).map { $0..<min($0 + size, count) }
  }

  /// The middleware's drains and its flush, the reduces untimed.
  func persistence(_ cards: [Card]) async throws -> Duration {
    var elapsed = Duration.zero
    for chunk in chunks(cards.count) {
      state.cards.upsert(contentsOf: cards[chunk])
      let start = ContinuousClock.now
      persistence.afterReduce(state: &state)
      elapsed += ContinuousClock.now - start
    }
    let start = ContinuousClock.now
    try await persistence.flush()
    return elapsed + (ContinuousClock.now - start)
  }

  /// One hand-written `INSERT … SELECT FROM UNNEST` of the rows' columns, one array per
  /// column, in a transaction.
  func rawInsert(_ cards: [Card]) async throws -> Duration {
    let start = ContinuousClock.now
    let ids = cards.map { String($0.id) }
    let titles = cards.map(\.title)
    let done = cards.map(\.done)
    let sortIndex = cards.map { Int64($0.sortIndex) }
    let positions = cards.map { Int64($0.id) }
    try await connection.query("BEGIN", logger: quiet)
    try await connection.query(
      """
      INSERT INTO raw (id, title, done, "sortIndex", version, updated_by, position)
      SELECT u.id, u.title, u.done, u.sort_index, 1, 'bench', u.position
      FROM UNNEST(\(ids)::text[], \(titles)::text[], \(done)::boolean[], \(sortIndex)::bigint[],
        \(positions)::bigint[]) AS u(id, title, done, sort_index, position)
      """, logger: quiet)
    try await connection.query("COMMIT", logger: quiet)
    return ContinuousClock.now - start
  }

  /// One hand-written `UPDATE … FROM UNNEST` of the rows' columns, in a transaction.
  func rawUpdate(_ cards: [Card]) async throws -> Duration {
    let start = ContinuousClock.now
    let ids = cards.map { String($0.id) }
    let titles = cards.map(\.title)
    let done = cards.map(\.done)
    let sortIndex = cards.map { Int64($0.sortIndex) }
    try await connection.query("BEGIN", logger: quiet)
    try await connection.query(
      """
      UPDATE raw AS r SET title = u.title, done = u.done, "sortIndex" = u.sort_index,
        version = r.version + 1, updated_by = 'bench', updated_at = now()
      FROM UNNEST(\(ids)::text[], \(titles)::text[], \(done)::boolean[], \(sortIndex)::bigint[])
        AS u(id, title, done, sort_index)
      WHERE r.id = u.id
      """, logger: quiet)
    try await connection.query("COMMIT", logger: quiet)
    return ContinuousClock.now - start
  }

  static let contenders = ["persistence", "raw-insert", "persistence-update", "raw-update"]

  func interleaved(rounds: Int, rows: Int) async throws {
    var perRound: [[String: Double]] = []
    for round in 0..<rounds {
      // Each round: the inserts first (the updates change the rows inserted), rotated.
      let inserted = [newCards(rows), newCards(rows)]
      let inserts = round % 2 == 0 ? ["persistence", "raw-insert"] : ["raw-insert", "persistence"]
      let updates =
        round % 2 == 0
        ? ["persistence-update", "raw-update"] : ["raw-update", "persistence-update"]
      var figures: [String: Double] = [:]
      for contender in inserts + updates {
        let elapsed: Duration
        switch contender {
        case "persistence": elapsed = try await persistence(inserted[0])
        case "raw-insert": elapsed = try await rawInsert(inserted[1])
        case "persistence-update":
          elapsed = try await persistence(
            inserted[0].map { card in
              var card = card
              card.title += ", changed"
              return card
            })
        default:
          elapsed = try await rawUpdate(
            inserted[1].map { card in
              var card = card
              card.title += ", changed"
              return card
            })
        }
        figures[contender] = elapsed / .microseconds(1) / Double(rows)
      }
      perRound.append(figures)
      let line = Self.contenders.map { "\($0) \(String(format: "%.2f", figures[$0] ?? 0))" }
      print("round \(round + 1) µs/row: " + line.joined(separator: ", "))
    }
    let stored = try await count("cards")
    precondition(stored == rounds * rows, "rows lost: \(stored) of \(rounds * rows)")
    func median(_ contender: String, _ baseline: String) -> String {
      // Throughput relative to the baseline: time(baseline) / time(contender).
      let ratios = perRound.map { ($0[baseline] ?? 0) / ($0[contender] ?? 1) }.sorted()
      return String(
        format: "%@ throughput / %@ = %.2f (rounds: %.2f-%.2f)", contender, baseline,
        ratios[ratios.count / 2], ratios.first ?? 0, ratios.last ?? 0)
    }
    print("median of \(rounds) interleaved rounds of \(rows) rows (drains and flush included):")
    print("  " + median("persistence", "raw-insert") + "   target >= 0.7")
    print("  " + median("persistence-update", "raw-update"))
    try await loads(rounds: rounds, rows: stored)
    try await persistence.shutdown()
    database.close()
    try await connection.close()
  }

  /// The table's rows loaded back, interleaved: `PostgresTable`'s load (each row's columns
  /// decoded into a `Card`, with its version and position) against a hand-written typed read
  /// of the same columns made `Card`s.
  func loads(rounds: Int, rows: Int) async throws {
    var ratios: [Double] = []
    var times: (load: [Double], raw: [Double]) = ([], [])
    for round in 0..<rounds {
      var load = Duration.zero
      var raw = Duration.zero
      for contender in round % 2 == 0 ? ["load", "raw"] : ["raw", "load"] {
        let start = ContinuousClock.now
        if contender == "load" {
          let store = try await database.load(cardTable)
          precondition(store.count == rows, "loaded \(store.count) of \(rows)")
          load = ContinuousClock.now - start
        } else {
          // NB: all rows collected on the event loop, the fastest read postgres-nio offers
          // (its async row sequence took ~16 µs a row here), as the load reads them.
          let result: EventLoopFuture<PostgresQueryResult> = connection.query(
            #"SELECT id, title, done, "sortIndex" FROM cards ORDER BY position, id"#,
            logger: quiet)
          var cards: [Card] = []
          for row in try await result.get() {
            let (id, title, done, sortIndex) = try row.decode((String, String, Bool, Int64).self)
            cards.append(Card(id: Int(id)!, title: title, done: done, sortIndex: Int(sortIndex)))
          }
          precondition(cards.count == rows, "read \(cards.count) of \(rows)")
          raw = ContinuousClock.now - start
        }
      }
      times.load.append(load / .milliseconds(1))
      times.raw.append(raw / .milliseconds(1))
      ratios.append(raw / load)
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    print(
      String(
        format: "load of %d rows: %.1f ms, a typed read made Cards by hand %.1f ms; "
          + "load throughput / typed read = %.2f (rounds: %.2f-%.2f)",
        rows, median(times.load), median(times.raw), median(ratios), ratios.min() ?? 0,
        ratios.max() ?? 0))
  }

  func count(_ table: String) async throws -> Int {
    let rows = try await connection.query(
      PostgresQuery(unsafeSQL: "SELECT count(*)::bigint FROM \(table)"), logger: quiet)
    for try await count in rows.decode(Int64.self) { return Int(count) }
    return 0
  }
}
