import BoardServerCore
import Foundation
import Hummingbird
import HummingbirdTesting
import Persistence
import PersistencePostgresTesting
import PersistenceSync
import PersistenceSyncTesting
import PostgresNIO
import Testing

/// board-server as a `SyncRemote`: PersistenceSync's contract on both backends, a restart that
/// starts a replica's pull over, and the HTTP routes.
@MainActor
@Suite("board-server syncs", .serialized)
struct SyncTests {
  /// Columns: a row the contract's checks can write with no other row (a card needs its
  /// column).
  static let contract = SyncRemoteContract(table: "columns") { id, n in
    #"{"id":"\#(id)","name":"name \#(n)"}"#
  }

  @Test("keeps SyncRemote's contract on SQLite")
  func contractOnSQLite() async throws {
    try await withTemporaryDatabase { path in
      let services = OpenedServices()
      try await Self.contract.verify {
        try await services.open(.sqlite(path: path))
      }
      try await services.shutDown()
    }
  }

  @Test(
    "keeps SyncRemote's contract on PostgreSQL",
    .enabled(if: TestServer.isAvailable, Comment(rawValue: TestServer.skipReason)))
  func contractOnPostgres() async throws {
    let url = try await TestServer.makeDatabase(prefix: "board_sync")
    let services = OpenedServices()
    var count = 0
    try await Self.contract.verify {
      count += 1
      return try await services.open(.postgres(url: url, instance: "web-\(count)"))
    }
    try await services.shutDown()
  }

  @Test(
    "a push that meets another writer's commit decides its change again; the rest lands",
    .enabled(if: TestServer.isAvailable, Comment(rawValue: TestServer.skipReason)))
  func pushMeetsAnotherCommit() async throws {
    let url = try await TestServer.makeDatabase(prefix: "board_sync")
    let service = try await BoardService.open(.postgres(url: url, instance: "web"), logger: quiet)
    let remote = ServiceRemote(service)
    let column = SyncChange(
      key: "r:1", table: "columns", id: "todo", json: #"{"name":"Todo"}"#, baseVersion: nil)
    let cards = ["a", "b"].enumerated().map { n, id in
      SyncChange(
        key: "r:\(n + 2)", table: "cards", id: id, json: #"{"columnID":"todo","title":"\#(id)"}"#,
        baseVersion: nil)
    }
    #expect(try await remote.push([column] + cards, from: "r").count == 3)
    // Another writer changes card a behind the instance's back: no change log, no feed, so
    // the instance still holds a at revision 1.
    try await TestServer.admin(url) { connection in
      try await connection.query(
        """
        UPDATE cards SET title = 'a, elsewhere', revision = 2, version = version + 1
        WHERE id = 'a'
        """, logger: quiet)
    }
    let edits = ["a", "b"].enumerated().map { n, id in
      SyncChange(
        key: "r:\(n + 4)", table: "cards", id: id,
        json: #"{"columnID":"todo","title":"\#(id), edited"}"#, baseVersion: 1)
    }
    let outcomes = try await remote.push(edits, from: "other-replica")
    // a: decided again on the row the commit met, a conflict carrying it; b: landed.
    guard case .conflict(let conflict) = outcomes.first else {
      Issue.record("a was applied over the other writer's change: \(outcomes)")
      return
    }
    #expect(conflict.currentVersion == 2)
    #expect(conflict.currentJSON?.contains("a, elsewhere") == true)
    #expect(outcomes.last == .applied(version: 2))
    #expect(service.card("a")?.title == "a, elsewhere")
    #expect(service.card("b")?.title == "b, edited")
    let titles = try await TestServer.admin(url) { connection in
      var titles: [String: String] = [:]
      for try await (id, title) in try await connection.query(
        "SELECT id, title FROM cards", logger: quiet
      ).decode((String, String).self) {
        titles[id] = title
      }
      return titles
    }
    #expect(titles == ["a": "a, elsewhere", "b": "b, edited"])
    try await service.shutdown()
  }

  @Test("a pull from before a restart starts over with the whole board, and reads on after it")
  func restartStartsOver() async throws {
    try await withTemporaryDatabase { path in
      let first = try await BoardService.open(.sqlite(path: path), logger: quiet)
      let remote = ServiceRemote(first)
      let key = { (n: Int) in "r:\(n)" }
      for (n, id) in ["todo", "done"].enumerated() {
        let change = SyncChange(
          key: key(n), table: "columns", id: id, json: #"{"name":"\#(id)"}"#, baseVersion: nil)
        #expect(try await remote.push([change], from: "r") == [.applied(version: 1)])
      }
      let page = try await remote.pull(after: nil, limit: 10)
      #expect(page.rows.map(\.id) == ["todo", "done"])
      #expect(!page.startsOver)
      #expect(try await remote.pull(after: page.cursor, limit: 10).rows.isEmpty)
      try await first.shutdown()

      let second = try await BoardService.open(.sqlite(path: path), logger: quiet)
      let restarted = ServiceRemote(second)
      let replay = try await restarted.pull(after: page.cursor, limit: 1)
      #expect(replay.startsOver)
      #expect(replay.rows.map(\.id) == ["todo"])
      let rest = try await restarted.pull(after: replay.cursor, limit: 10)
      #expect(!rest.startsOver)
      #expect(rest.rows.map(\.id) == ["done"])
      // The key applied before the restart is answered, not applied again.
      let retried = SyncChange(
        key: key(1), table: "columns", id: "done", json: #"{"name":"done"}"#, baseVersion: nil)
      #expect(try await restarted.push([retried], from: "r") == [.applied(version: 1)])
      #expect(second.column("done")?.revision == 1)
      try await second.shutdown()
    }
  }

  @Test("a change the board cannot take is refused as a conflict, the board's row unchanged")
  func refusedChanges() async throws {
    try await withTemporaryDatabase { path in
      let service = try await BoardService.open(.sqlite(path: path), logger: quiet)
      let remote = ServiceRemote(service)
      let made = SyncChange(
        key: "r:1", table: "columns", id: "todo", json: #"{"name":"Todo"}"#, baseVersion: nil)
      let card = SyncChange(
        key: "r:2", table: "cards", id: "c1", json: #"{"columnID":"todo","title":"one"}"#,
        baseVersion: nil)
      #expect(
        try await remote.push([made, card], from: "r") == [
          .applied(version: 1), .applied(version: 1),
        ])
      let tooLong = String(repeating: "x", count: 1_001)
      let refused = [
        // A column that holds a card.
        SyncChange(key: "r:3", table: "columns", id: "todo", json: nil, baseVersion: 1),
        // A title over the limit.
        SyncChange(
          key: "r:4", table: "cards", id: "c1",
          json: #"{"columnID":"todo","title":"\#(tooLong)"}"#, baseVersion: 1),
        // A card in a column the board does not have.
        SyncChange(
          key: "r:5", table: "cards", id: "c2", json: #"{"columnID":"gone","title":"two"}"#,
          baseVersion: nil),
      ]
      let outcomes = try await remote.push(refused, from: "r")
      #expect(outcomes.count == 3)
      for outcome in outcomes {
        guard case .conflict = outcome else {
          Issue.record("applied: \(outcome)")
          continue
        }
      }
      #expect(service.column("todo")?.revision == 1)
      #expect(service.card("c1")?.title == "one")
      #expect(service.card("c2") == nil)
      try await service.shutdown()
    }
  }

  @Test("POST /sync/push and GET /sync/pull speak the contract's JSON")
  func routes() async throws {
    try await withTemporaryDatabase { path in
      let server = try await ServerInstance(.sqlite(path: path))
      try await server.app.test(.router) { client in
        let push = #"""
          {"replica": "r", "changes": [
            {"key": "r:1", "table": "columns", "id": "todo", "json": "{\"name\":\"Todo\"}"}]}
          """#
        let pushed = try await client.send(.post, "/sync/push", json: push, as: [SyncOutcome].self)
        #expect(pushed.status == .ok)
        #expect(pushed.body == [.applied(version: 1)])
        let again = try await client.send(.post, "/sync/push", json: push, as: [SyncOutcome].self)
        #expect(again.body == [.applied(version: 1)])

        let pulled = try await client.send(.get, "/sync/pull?limit=10", as: SyncPage.self)
        let page = try #require(pulled.body)
        #expect(page.rows.map(\.id) == ["todo"])
        #expect(page.rows.first?.version == 1)
        #expect(page.rows.first?.writer == "r")
        let after = try await client.send(
          .get, "/sync/pull?after=\(page.cursor)", as: SyncPage.self)
        #expect(after.body?.rows.isEmpty == true)

        let unknown = try await client.send(
          .post, "/sync/push",
          json: #"{"replica": "r", "changes": [{"key": "k", "table": "users", "id": "x"}]}"#,
          as: Nothing.self)
        #expect(unknown.status == .badRequest)
      }
      try await server.service.shutdown()
    }
  }
}

/// A board service as a `SyncRemote`, in this process: what `POST /sync/push` and
/// `GET /sync/pull` answer, without HTTP.
struct ServiceRemote: SyncRemote {
  let service: BoardService

  init(_ service: BoardService) {
    self.service = service
  }

  func push(_ changes: [SyncChange], from replica: String) async throws -> [SyncOutcome] {
    try await service.syncPush(changes, from: replica).get()
  }

  func pull(after cursor: String?, limit: Int) async throws -> SyncPage {
    try await service.syncPull(after: cursor, limit: limit).get()
  }
}

/// The services a contract run opens (one per check), shut down after it.
@MainActor
final class OpenedServices {
  private var services: [BoardService] = []

  func open(_ database: BoardDatabase) async throws -> any SyncRemote {
    let service = try await BoardService.open(database, logger: quiet)
    services.append(service)
    return ServiceRemote(service)
  }

  func shutDown() async throws {
    for service in services { try await service.shutdown() }
  }
}
