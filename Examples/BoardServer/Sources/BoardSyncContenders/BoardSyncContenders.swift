import BoardServerCore
import Foundation
import Logging
import PersistenceSQLite
import PersistenceSync
import PostgresNIO
import Synchronization

/// board-server's sync, measured through a real `board-server` process on PostgreSQL
/// (`REDUXKIT_POSTGRES_URL`; `Scripts/postgres-bench.sh` starts a throwaway server), build it
/// with `swift build -c release --package-path Examples/BoardServer`.
///
/// `BoardSyncContenders <rounds> <rows>` runs, in every round (their order alternating):
/// - `push`: `rows` new cards pushed through `POST /sync/push`, in the batches a `SyncReplica`
///   sends (500), against `raw`: one hand-written postgres-nio transaction of one
///   `INSERT … SELECT FROM UNNEST` of the same rows into a table of the same shape (the cards
///   table's columns, made with `LIKE cards INCLUDING ALL`);
/// - `converge`: a replica that made `rows` changes offline (each its own local flush) is
///   reconnected: the time until it has pushed them and a second replica has pulled them all.
///
/// It prints each round's figures and the medians.
@main
enum BoardSyncContenders {
  static let quiet = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }

  static func main() async throws {
    let numbers = CommandLine.arguments.dropFirst().compactMap { Int($0) }.filter { $0 > 0 }
    guard numbers.count == 2, CommandLine.arguments.count == 3 else {
      fatalError("usage: BoardSyncContenders <rounds> <rows>")
    }
    guard let url = ProcessInfo.processInfo.environment["REDUXKIT_POSTGRES_URL"] else {
      fatalError("set REDUXKIT_POSTGRES_URL (eval \"$(Scripts/postgres.sh start)\")")
    }
    let (rounds, rows) = (numbers[0], numbers[1])
    let name =
      "bench_sync_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    let admin = try await connect(url)
    try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: quiet)
    let database = String(url[..<url.lastIndex(of: "/")!]) + "/" + name
    let server = try startServer(databaseURL: database)
    defer { server.process.terminate() }
    let client = BoardSyncClient(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!)
    let column = SyncChange(
      key: "bench:column", table: "columns", id: "todo", json: #"{"name":"Todo"}"#,
      baseVersion: nil)
    _ = try await client.push([column], from: "bench")
    let raw = try await connect(database)
    try await raw.query("CREATE TABLE raw_cards (LIKE cards INCLUDING ALL)", logger: quiet)
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("board-sync-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }

    var pushes: [Double] = []
    var raws: [Double] = []
    var ratios: [Double] = []
    var converges: [Double] = []
    var next = 0
    for round in 0..<rounds {
      let ids = (next..<next + rows).map { "card-\($0)" }
      next += rows
      var push = Duration.zero
      var rawTime = Duration.zero
      for contender in round % 2 == 0 ? ["push", "raw"] : ["raw", "push"] {
        if contender == "push" {
          push = try await pushCards(ids, through: client)
        } else {
          rawTime = try await insertRaw(ids, on: raw)
        }
      }
      let converge = try await reconnect(
        rows: rows, round: round, directory: directory, port: server.port)
      let (p, r) = (
        push / .microseconds(1) / Double(rows), rawTime / .microseconds(1) / Double(rows)
      )
      pushes.append(p)
      raws.append(r)
      ratios.append(r / p)
      converges.append(converge / .milliseconds(1))
      print(
        "round \(round + 1): push \(format(p)) µs/row, raw \(format(r)) µs/row (push = \(format(r / p))× raw's throughput); reconnect → converged \(format(converge / .milliseconds(1))) ms"
      )
    }
    print(
      "median of \(rounds) rounds, \(rows) rows: push \(format(median(pushes))) µs/row, raw \(format(median(raws))) µs/row, push = \(format(median(ratios)))× raw's throughput; reconnect → converged \(format(median(converges))) ms (\(format(converges.min() ?? 0))–\(format(converges.max() ?? 0)))"
    )
    try await raw.close()
    server.process.terminate()
    server.process.waitUntilExit()
    try await admin.query(
      PostgresQuery(unsafeSQL: "DROP DATABASE \(name) WITH (FORCE)"), logger: quiet)
    try await admin.close()
  }

  /// New cards pushed as a replica pushes them: 500 a request.
  static func pushCards(_ ids: [String], through client: BoardSyncClient) async throws -> Duration {
    let changes = ids.map { id in
      SyncChange(
        key: "bench:\(id)", table: "cards", id: id,
        json: #"{"columnID":"todo","title":"\#(id) with a title of some length"}"#,
        baseVersion: nil)
    }
    let start = ContinuousClock.now
    for offset in stride(from: 0, to: changes.count, by: 500) {
      let outcomes = try await client.push(
        Array(changes[offset..<min(offset + 500, changes.count)]), from: "bench")
      precondition(outcomes.allSatisfy { $0 == .applied(version: 1) }, "\(outcomes.first!)")
    }
    return ContinuousClock.now - start
  }

  /// The same rows, every column the server writes, in one hand-written transaction.
  static func insertRaw(_ ids: [String], on connection: PostgresConnection) async throws
    -> Duration
  {
    let now = Date().timeIntervalSinceReferenceDate
    let titles = ids.map { "\($0) with a title of some length" }
    let receipts = ids.map { #"[{"key":"bench:\#($0)","revision":1}]"# }
    let start = ContinuousClock.now
    try await connection.query("BEGIN", logger: quiet)
    try await connection.query(
      """
      INSERT INTO raw_cards (id, "columnID", title, notes, tags, "createdAt", "updatedAt",
        revision, "updatedBy", "syncReceipts", version, updated_by)
      SELECT u.id, 'todo', u.title, '', '[]'::jsonb, \(now), \(now), 1, 'bench',
        u.receipts::jsonb, 1, 'bench'
      FROM UNNEST(\(ids)::text[], \(titles)::text[], \(receipts)::text[])
        AS u(id, title, receipts)
      """, logger: quiet)
    try await connection.query("COMMIT", logger: quiet)
    return ContinuousClock.now - start
  }

  /// A replica with `rows` changes made offline, then reconnected: until a second replica
  /// has them all.
  static func reconnect(rows: Int, round: Int, directory: URL, port: Int) async throws
    -> Duration
  {
    let url = URL(string: "http://127.0.0.1:\(port)")!
    let writer = try Replica(
      directory, name: "writer-\(round)", remote: BoardSyncClient(baseURL: url))
    let reader = try Replica(
      directory, name: "reader-\(round)", remote: BoardSyncClient(baseURL: url))
    // NB: both in step first: what is measured is the reconnection, not a first pull.
    try await writer.replica.sync()
    try await reader.replica.sync()
    writer.link.set(up: false)
    for n in 0..<rows {
      try await writer.write(
        Replica.Card(id: "r\(round)-\(n)", columnID: "todo", title: "offline \(n)"))
    }
    let start = ContinuousClock.now
    writer.link.set(up: true)
    try await writer.replica.sync()
    let pushed = ContinuousClock.now - start
    var pulled = 0
    while pulled < rows { pulled += try await reader.replica.pull() }
    let converged = ContinuousClock.now - start
    print(
      "  reconnect: pushed in \(format(pushed / .milliseconds(1))) ms, pulled by then \(format((converged - pushed) / .milliseconds(1))) ms"
    )
    return converged
  }

  static func startServer(databaseURL: String) throws -> (process: Process, port: Int) {
    let executable = URL(fileURLWithPath: CommandLine.arguments[0])
      .deletingLastPathComponent().appendingPathComponent("board-server")
    let process = Process()
    process.executableURL = executable
    process.arguments = ["--port", "0", "--instance", "bench"]
    var environment = ProcessInfo.processInfo.environment
    environment["DATABASE_URL"] = databaseURL
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    var text = ""
    while true {
      let data = output.fileHandleForReading.availableData
      guard !data.isEmpty else { fatalError("board-server did not start") }
      text += String(decoding: data, as: UTF8.self)
      if let line = text.split(separator: "\n").first(where: { $0.contains("listening on") }),
        let port = line.split(separator: ":").last.flatMap({ Int($0) })
      {
        return (process, port)
      }
    }
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

  static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
  }

  static func format(_ value: Double) -> String { String(format: "%.2f", value) }
}

/// An app's file and its replica, over a link that can be cut.
final class Replica: Sendable {
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

  let database: SQLiteDatabase
  let link: Link
  let replica: SyncReplica

  init(_ directory: URL, name: String, remote: any SyncRemote) throws {
    let path = directory.appendingPathComponent("\(name).sqlite").path
    database = try SQLiteDatabase(path: path, migrations: Self.migrations)
    link = Link(remote)
    replica = try SyncReplica(
      path: path, migrations: Self.migrations,
      tables: [SyncedTable(Self.columns), SyncedTable(Self.cards)], remote: link)
  }

  /// One local flush, as an app's.
  func write(_ card: Card) async throws {
    try await database.persist(to: Self.cards)([card], [])
  }
}

/// A remote that can be cut off.
final class Link: SyncRemote {
  struct Down: Error {}

  private let remote: any SyncRemote
  private let isUp = Mutex(true)

  init(_ remote: any SyncRemote) {
    self.remote = remote
  }

  func set(up: Bool) { isUp.withLock { $0 = up } }

  func push(_ changes: [SyncChange], from replica: String) async throws -> [SyncOutcome] {
    guard isUp.withLock({ $0 }) else { throw Down() }
    return try await remote.push(changes, from: replica)
  }

  func pull(after cursor: String?, limit: Int) async throws -> SyncPage {
    guard isUp.withLock({ $0 }) else { throw Down() }
    return try await remote.pull(after: cursor, limit: limit)
  }
}
