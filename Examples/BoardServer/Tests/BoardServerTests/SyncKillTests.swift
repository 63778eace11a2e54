import BoardServerCore
import Foundation
import Persistence
import PersistencePostgresTesting
import PersistenceSQLite
import PersistenceSync
import PostgresNIO
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Offline-first clients (a `SyncReplica` on a SQLite file of their own) of two `board-server`
/// processes over one PostgreSQL database, one server killed with SIGKILL in the middle of a
/// push and started again: every edit a client's file acknowledged reaches the database or is
/// reported to that client as a conflict, a change whose reply was lost is applied once, and
/// the clients converge on the database.
@MainActor
@Suite(.enabled(if: TestServer.isAvailable, Comment(rawValue: TestServer.skipReason)), .serialized)
struct SyncKillTests {
  @Test func clientsOfKilledServersLoseNoEditAndConverge() async throws {
    let url = try await TestServer.makeDatabase(prefix: "board_sync")
    var a = try await ServerProcess.start(databaseURL: url, instance: "a")
    let b = try await ServerProcess.start(databaseURL: url, instance: "b")
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("board-sync-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let one = try SyncingClient(directory, name: "one", port: a.port)
    let two = try SyncingClient(directory, name: "two", port: b.port)

    try await one.write(column: SyncingClient.Column(id: "todo", name: "Todo"))
    try await one.replica.sync()
    try await two.replica.sync()
    #expect(try await two.cards().isEmpty)

    // `one` makes 300 cards offline (each acknowledged by its file), then pushes them 20 at a
    // time to `a`, which is killed once 40 are in the database: the batch under way when it
    // died committed in part, and its reply was lost.
    for n in 0..<300 {
      try await one.write(SyncingClient.Card(id: "one-\(n)", columnID: "todo", title: "one \(n)"))
    }
    let pushing = Task { _ = try? await one.replica.push() }
    while try await Self.cards(in: url, by: one.replica.replica) < 40 {
      await Task.yield()
    }
    kill(a.process.processIdentifier, SIGKILL)
    await pushing.value
    let unanswered = try await one.replica.pendingChanges()
    #expect(unanswered > 0, "the kill came before the push ended")
    // Committed but not answered: the batch the kill cut (when it did not fall between two).
    let lostReplies =
      try await Self.cards(in: url, by: one.replica.replica) - (300 - unanswered)

    // Meanwhile `two` edits some of them through `b`, and `one` (offline) edits every other
    // one of those too.
    try await two.replica.sync()
    var twoEdits: [String: String] = [:]
    for n in stride(from: 0, to: 40, by: 2) where try await two.cards()["one-\(n)"] != nil {
      let card = SyncingClient.Card(id: "one-\(n)", columnID: "todo", title: "two's \(n)")
      try await two.write(card)
      twoEdits[card.id] = card.title
    }
    try await two.replica.sync()
    var oneEdits: [String: String] = [:]
    for n in stride(from: 0, to: 40, by: 4) {
      let card = SyncingClient.Card(id: "one-\(n)", columnID: "todo", title: "one's edit \(n)")
      try await one.write(card)
      oneEdits[card.id] = card.title
    }

    // `a` again, on another port; both sync until they and the database agree, `one` keeping
    // its own rows in conflicts (.mine), `two` the server's (.theirs).
    a = try await ServerProcess.start(databaseURL: url, instance: "a-again")
    one.server.move(to: URL(string: "http://127.0.0.1:\(a.port)")!)
    var reported: [String: Set<String>] = ["one": [], "two": []]
    var converged = false
    // NB: `b` learns what `a` commits through its change feed: the clients sync until they
    // agree with the database (each round real requests, no timer), for at most a minute.
    let deadline = ContinuousClock.now.advanced(by: .seconds(60))
    while !converged, ContinuousClock.now < deadline {
      var quiet = true
      for (name, client, keeping) in [
        ("one", one, ConflictResolution.mine), ("two", two, ConflictResolution.theirs),
      ] {
        let report = try await client.replica.sync()
        if report.pushed > 0 || !report.conflicts.isEmpty { quiet = false }
        for waiting in try await client.replica.conflicts() where waiting.resolution == nil {
          reported[name]?.insert(waiting.conflict.id)
          try await client.replica.resolve(waiting.conflict, keeping: keeping)
          quiet = false
        }
      }
      let titles = try await Self.rows(in: url).mapValues(\.title)
      let (mine, theirs) = (try await one.cards(), try await two.cards())
      converged = quiet && mine == titles && theirs == titles
    }
    #expect(converged, "the clients and the database agree")

    // Every acknowledged edit is there: `one`'s cards, `two`'s edits, and where both edited a
    // card, `one`'s (it was told of the conflict and kept its own).
    var expected = Dictionary(uniqueKeysWithValues: (0..<300).map { ("one-\($0)", "one \($0)") })
    expected.merge(twoEdits) { _, new in new }
    expected.merge(oneEdits) { _, new in new }
    let stored = try await Self.rows(in: url)
    #expect(stored.mapValues(\.title) == expected)
    #expect(twoEdits.count >= 10)
    #expect(reported["one"] == Set(oneEdits.keys.filter { twoEdits[$0] != nil }))
    #expect(reported["two"]?.isEmpty == true)
    // Applied once: the cards nobody edited are at their first revision, through the lost
    // reply and its retry to another process.
    let untouched = stored.filter { twoEdits[$0.key] == nil && oneEdits[$0.key] == nil }
    #expect(untouched.count >= 260)
    #expect(untouched.allSatisfy { $0.value.revision == 1 })
    #expect(try await one.replica.pendingChanges() == 0)
    #expect(try await two.replica.pendingChanges() == 0)
    print(
      "sync kill: 300 cards pushed through a SIGKILL (\(lostReplies) committed with their reply lost), \(untouched.count) untouched all at revision 1, \(reported["one"]?.count ?? 0) conflicts reported and kept"
    )
    kill(a.process.processIdentifier, SIGKILL)
    kill(b.process.processIdentifier, SIGKILL)
  }

  /// The cards in the database that `writer` made last.
  static func cards(in url: String, by writer: String) async throws -> Int {
    try await TestServer.admin(url) { connection in
      var count = 0
      for try await n in try await connection.query(
        "SELECT count(*)::int FROM cards WHERE \"updatedBy\" = \(writer)", logger: quiet
      ).decode(Int.self) {
        count = n
      }
      return count
    }
  }

  /// The cards in the database: title and revision by id.
  static func rows(in url: String) async throws -> [String: (title: String, revision: Int)] {
    try await TestServer.admin(url) { connection in
      var rows: [String: (title: String, revision: Int)] = [:]
      for try await (id, title, revision) in try await connection.query(
        "SELECT id, title, revision::int FROM cards", logger: quiet
      ).decode((String, String, Int).self) {
        rows[id] = (title, revision)
      }
      return rows
    }
  }
}

/// An offline-first client of board-server: its own SQLite file, synced over HTTP.
final class SyncingClient: Sendable {
  struct Card: Codable, Identifiable, Equatable, Sendable {
    let id: String
    var columnID: String
    var title: String
  }

  struct Column: Codable, Identifiable, Equatable, Sendable {
    let id: String
    var name: String
  }

  static let cards = EntityTable<Card>("cards")
  static let columns = EntityTable<Column>("columns")
  static let migrations = [
    SQLiteMigration("v1") { db in
      try columns.create(in: db)
      try cards.create(in: db)
    },
    SyncReplica.migration,
  ]

  let path: String
  /// The server it syncs with, over HTTP.
  let server: BoardSyncClient
  let replica: SyncReplica

  init(_ directory: URL, name: String, port: Int) throws {
    path = directory.appendingPathComponent("\(name).sqlite").path
    server = BoardSyncClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!)
    replica = try SyncReplica(
      path: path, migrations: Self.migrations,
      tables: [SyncedTable(Self.columns), SyncedTable(Self.cards)], remote: server,
      batchSize: 20)
  }

  /// Writes as the app does: acknowledged once its transaction commits.
  func write(_ card: Card) async throws {
    try await database { try await $0.persist(to: Self.cards)([card], []) }
  }

  func write(column: Column) async throws {
    try await database { try await $0.persist(to: Self.columns)([column], []) }
  }

  /// The cards in the file, title by id.
  func cards() async throws -> [String: String] {
    try await database { database in
      Dictionary(
        uniqueKeysWithValues: try await database.load(Self.cards).map { ($0.id, $0.title) })
    }
  }

  private func database<T>(_ body: (SQLiteDatabase) async throws -> T) async throws -> T {
    let database = try SQLiteDatabase(path: path, migrations: Self.migrations)
    defer { try? database.close() }
    _ = try await database.load(Self.columns)
    _ = try await database.load(Self.cards)
    return try await body(database)
  }
}
