import Benchmark
import EntityTracking
import Foundation
import GRDB
import Persistence
import PersistenceSQLite

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

let cardTable = EntityTable<Card>("cards")
let size = 100_000

func makeCards(_ count: Int) -> [Card] {
  (0..<count).map {
    Card(id: $0, title: "card number \($0) with a long title", done: $0 % 3 == 0, sortIndex: $0)
  }
}

/// A fresh database file with the entity table and the hand-written table of the baseline, of
/// the same shape (`EntityTable.create`'s: an `id` primary key without a type, a JSON blob).
func makeDatabase() throws -> (SQLiteDatabase, path: String) {
  let path = FileManager.default.temporaryDirectory
    .appendingPathComponent("reduxkit-bench-\(UUID().uuidString).sqlite").path
  var migrator = DatabaseMigrator()
  migrator.registerMigration("v1") { db in
    try cardTable.create(in: db)
    try db.execute(
      sql: "CREATE TABLE handwritten (id NOT NULL PRIMARY KEY, data BLOB NOT NULL)")
  }
  return (try SQLiteDatabase(path: path, migrator: migrator), path)
}

func remove(_ path: String) {
  for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}

@MainActor
func makeMiddleware(_ database: SQLiteDatabase) -> PersistenceMiddleware<AppState> {
  PersistenceMiddleware(
    database: database,
    writers: [StateWriter(keyPath: \.cards, table: cardTable, database: database)])
}

@inline(never)
func blackHole<T>(_ value: T) {}

let benchmarks: @Sendable () -> Void = {
  let flushes = Benchmark.Configuration(
    metrics: [.wallClock, .mallocCountTotal],
    timeUnits: .milliseconds,
    maxDuration: .seconds(30),
    maxIterations: 15
  )
  let cards = makeCards(size)
  // The 10 reduces the rows arrive in.
  let chunks = stride(from: 0, to: size, by: size / 10).map { $0..<min($0 + size / 10, size) }

  // The baseline: what an app writes by hand for the same rows and the same table shape: one
  // prepared upsert of each row's JSON (`JSONEncoder`), in one transaction of the same WAL
  // database. Interleaved, load-independent figures (instructions per row, against this and
  // a typed-columns table): Scripts/persistence-instructions.sh.
  Benchmark("flush 100k upserts: GRDB prepared loop", configuration: flushes) { benchmark in
    let (database, path) = try makeDatabase()
    defer { remove(path) }
    benchmark.startMeasurement()
    // NB: the app's reduces, measured on both sides (package-benchmark times one region).
    var state = AppState()
    for chunk in chunks { state.cards.upsert(contentsOf: cards[chunk]) }
    blackHole(state)
    try await database.writer.write { db in
      let encoder = JSONEncoder()
      let upsert = try db.makeStatement(
        sql: """
          INSERT INTO handwritten (id, data) VALUES (?, ?)
          ON CONFLICT(id) DO UPDATE SET data = excluded.data
          """)
      for card in cards {
        try upsert.execute(arguments: [card.id, try encoder.encode(card)])
      }
    }
    benchmark.stopMeasurement()
  }

  // The same rows through the middleware, as an app pays for them: the drains (`afterReduce`
  // after each of 10 reduces, which record the changes) and the flush (JSON encoding
  // included), one transaction. The reduces (the app's work) are measured on both sides.
  Benchmark("flush 100k upserts: PersistenceSQLite", configuration: flushes) {
    @MainActor benchmark in
    let (database, path) = try makeDatabase()
    defer { remove(path) }
    let persistence = makeMiddleware(database)
    benchmark.startMeasurement()
    var state = AppState()
    for chunk in chunks {
      state.cards.upsert(contentsOf: cards[chunk])
      persistence.afterReduce(state: &state)
    }
    try await persistence.flush()
    benchmark.stopMeasurement()
    try await persistence.shutdown()
  }

  // Ten updates to one id inside a debounce window: the database sees one row write.
  Benchmark(
    "10 updates to one id in a window: rows written",
    configuration: .init(
      metrics: [.custom("rows written", useScalingFactor: false)], maxIterations: 3)
  ) { @MainActor benchmark in
    let (database, path) = try makeDatabase()
    defer { remove(path) }
    let persistence = makeMiddleware(database)
    var state = AppState()
    let before = try await database.writer.write { db in db.totalChangesCount }
    for revision in 1...10 {
      state.cards.upsert(Card(id: 1, title: "revision \(revision)", done: false, sortIndex: 0))
      persistence.afterReduce(state: &state)
    }
    try await persistence.flush()
    let after = try await database.writer.write { db in db.totalChangesCount }
    benchmark.measurement(.custom("rows written", useScalingFactor: false), after - before)
    try await persistence.shutdown()
  }

  // afterReduce when nothing changed, 100k times: its cost must not grow with the store.
  func unchanged(_ count: Int) {
    Benchmark(
      "afterReduce unchanged x100k: \(count) entities",
      configuration: .init(metrics: [.wallClock], timeUnits: .microseconds, maxIterations: 20)
    ) { @MainActor benchmark in
      let (database, path) = try makeDatabase()
      defer { remove(path) }
      let persistence = makeMiddleware(database)
      var state = AppState(cards: EntityStore(cards.prefix(count)))
      benchmark.startMeasurement()
      for _ in 0..<100_000 { persistence.afterReduce(state: &state) }
      benchmark.stopMeasurement()
      blackHole(state)
      try await persistence.shutdown()
    }
  }
  unchanged(100)
  unchanged(100_000)
}
