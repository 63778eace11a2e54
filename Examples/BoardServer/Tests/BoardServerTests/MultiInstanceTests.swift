import BoardServerCore
import Foundation
import Hummingbird
import HummingbirdTesting
import PersistencePostgresTesting
import PostgresNIO
import Testing

/// Three instances over one PostgreSQL database, in one process (each with its own store,
/// connections and change feed): concurrent writers lose no update silently, and every
/// instance converges, also after its listening connection is killed.
@MainActor
@Suite(.enabled(if: TestServer.isAvailable, Comment(rawValue: TestServer.skipReason)), .serialized)
struct MultiInstanceTests {
  /// Each writer increments a card's counter (its title) through its own instance, with the
  /// revision it read: a 412 is a conflict surfaced, so the final counter must equal the
  /// number of accepted writes. A lost update would leave it lower.
  @Test func concurrentWritersLoseNoUpdateAndEveryInstanceConverges() async throws {
    let url = try await TestServer.makeDatabase(prefix: "board")
    var servers: [ServerInstance] = []
    for index in 0..<3 {
      servers.append(try await ServerInstance(.postgres(url: url, instance: "web-\(index)")))
    }
    let apps = servers.map(\.app)
    let cardIDs = try await apps[0].test(.router) { client in
      let column = try await client.send(
        .post, "/columns", json: #"{"name": "Todo"}"#, as: Column.self)
      let columnID = try #require(column.body?.id)
      var ids: [String] = []
      for _ in 0..<3 {
        let card = try await client.send(
          .post, "/cards", json: #"{"columnID": "\#(columnID)", "title": "0"}"#, as: Card.self)
        ids.append(try #require(card.body?.id))
      }
      return ids
    }
    await converge(servers, cards: 3)
    let created = try await rowVersions(url)

    let (accepted, refused) = try await apps[0].test(.router) { a in
      try await apps[1].test(.router) { b in
        try await apps[2].test(.router) { c in
          try await withThrowingTaskGroup { group in
            for (writer, client) in [a, b, c, a, b, c].enumerated() {
              group.addTask {
                try await increment(client, cards: cardIDs, times: 12, seed: writer)
              }
            }
            var accepted: [String: Int] = [:]
            var refused = 0
            for try await (counts, conflicts) in group {
              accepted.merge(counts, uniquingKeysWith: +)
              refused += conflicts
            }
            return (accepted, refused)
          }
        }
      }
    }
    #expect(accepted.values.reduce(0, +) == 6 * 12)
    await converge(servers, cards: 3)
    for server in servers {
      for id in cardIDs {
        // Every accepted write is in the counter: none was overwritten silently.
        #expect(server.service.card(id)?.title == "\(accepted[id] ?? 0)")
      }
    }
    // Every accepted write is one committed version of its row, and nothing else is.
    let versions = try await rowVersions(url)
    for id in cardIDs {
      let first = try #require(created[id])
      #expect(versions[id] == first + Int64(accepted[id] ?? 0))
    }
    let conflicts = servers.compactMap { $0.service.health.conflicts }.reduce(0, +)
    print(
      "multi-instance: \(accepted.values.reduce(0, +)) writes accepted, \(refused) refused with 412 (\(conflicts) database conflicts)"
    )
    for server in servers { try await server.service.shutdown() }
  }

  @Test func anInstanceWhoseListeningConnectionIsKilledStillConverges() async throws {
    let url = try await TestServer.makeDatabase(prefix: "board")
    let first = try await ServerInstance(.postgres(url: url, instance: "web-0"))
    let second = try await ServerInstance(.postgres(url: url, instance: "web-1"))
    let columnID = try await first.app.test(.router) { client in
      try #require(
        try await client.send(.post, "/columns", json: #"{"name": "Todo"}"#, as: Column.self).body?
          .id)
    }
    await converge([first, second], cards: 0, columns: 1)
    let killed = try await TestServer.admin(url) { connection in
      var count = 0
      for try await _ in try await connection.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'reduxkit-feed-web-1' AND datname = current_database()",
        logger: quiet)
      { count += 1 }
      return count
    }
    #expect(killed == 1)
    try await first.app.test(.router) { client in
      _ = try await client.send(
        .post, "/cards", json: #"{"columnID": "\#(columnID)", "title": "after the kill"}"#,
        as: Card.self)
    }
    await converge([first, second], cards: 1, columns: 1)
    #expect(second.service.cards.map(\.title) == ["after the kill"])
    #expect((second.service.health.feedReconnects ?? 0) >= 1)
    try await first.service.shutdown()
    try await second.service.shutdown()
  }

  /// A request whose card the database cannot hold is answered 4xx and leaves nothing behind
  /// on any instance; the writes after it are not held up.
  @Test func aCardTheDatabaseCannotHoldIsRefusedAndStopsNothing() async throws {
    let url = try await TestServer.makeDatabase(prefix: "board")
    let first = try await ServerInstance(.postgres(url: url, instance: "web-0"))
    let second = try await ServerInstance(.postgres(url: url, instance: "web-1"))
    // A rule of the operator's: titles of 20 characters at most.
    try await TestServer.admin(url) { connection in
      try await connection.query(
        "ALTER TABLE cards ADD CONSTRAINT short_titles CHECK (length(title) <= 20)",
        logger: quiet)
    }
    let columnID = try await first.app.test(.router) { client in
      try #require(
        try await client.send(.post, "/columns", json: #"{"name": "Todo"}"#, as: Column.self).body?
          .id)
    }
    // A NUL character, which jsonb cannot hold: refused before anything is done.
    let nul = try await first.app.test(.router) { client in
      try await client.send(
        .post, "/cards", json: #"{"columnID": "\#(columnID)", "title": "bad\u0000title"}"#,
        as: Nothing.self
      ).status
    }
    #expect(nul == .badRequest)
    // A title the database refuses: 422, and the instance does not keep it.
    let long = try await first.app.test(.router) { client in
      try await client.send(
        .post, "/cards",
        json: #"{"columnID": "\#(columnID)", "title": "a title of more than twenty characters"}"#,
        as: Nothing.self
      ).status
    }
    #expect(long == .unprocessableContent)
    #expect(first.service.cards.isEmpty)
    #expect(first.service.health.pendingChanges == 0)
    // The next write goes through, on this instance and the others.
    let good = try await first.app.test(.router) { client in
      try await client.send(
        .post, "/cards", json: #"{"columnID": "\#(columnID)", "title": "short"}"#, as: Card.self)
    }
    #expect(good.status == .created)
    let id = try #require(good.body?.id)
    let tag = try #require(good.tag)
    let tooLong = try await first.app.test(.router) { client in
      try await client.send(
        .put, "/cards/\(id)", json: #"{"title": "now far more than twenty characters"}"#,
        ifMatch: tag, as: Nothing.self
      ).status
    }
    #expect(tooLong == .unprocessableContent)
    #expect(first.service.card(id)?.title == "short")
    #expect(first.service.card(id)?.entityTag == tag)
    await converge([first, second], cards: 1, columns: 1)
    #expect(second.service.cards.map(\.title) == ["short"])
    let titles = try await TestServer.admin(url) { connection in
      var titles: [String] = []
      for try await title in try await connection.query(
        "SELECT title FROM cards", logger: quiet
      ).decode(String.self) {
        titles.append(title)
      }
      return titles
    }
    #expect(titles == ["short"])
    try await first.service.shutdown()
    try await second.service.shutdown()
  }

  /// Waits until every instance holds the same board, in the same order.
  func converge(_ servers: [ServerInstance], cards: Int, columns: Int = 1) async {
    await waitUntil(
      "the instances converge on \(cards) cards", watching: servers.map(\.service)
    ) {
      let boards = servers.map(\.service.cards)
      let columnLists = servers.map(\.service.columns)
      return boards.allSatisfy { $0 == boards[0] } && boards[0].count == cards
        && columnLists.allSatisfy { $0 == columnLists[0] } && columnLists[0].count == columns
    }
  }

  @Test func everyInstanceHoldsTheCardsInOneOrderAfterConcurrentAddsAndMoves() async throws {
    let url = try await TestServer.makeDatabase(prefix: "board")
    var servers: [ServerInstance] = []
    for index in 0..<3 {
      servers.append(try await ServerInstance(.postgres(url: url, instance: "web-\(index)")))
    }
    let apps = servers.map(\.app)
    let (todo, done) = try await apps[0].test(.router) { client in
      let todo = try await client.send(
        .post, "/columns", json: #"{"name": "Todo"}"#, as: Column.self)
      let done = try await client.send(
        .post, "/columns", json: #"{"name": "Done"}"#, as: Column.self)
      return (try #require(todo.body?.id), try #require(done.body?.id))
    }
    await converge(servers, cards: 0, columns: 2)

    // Each instance adds four cards at once with the others, then moves two of them to Done
    // (a move goes last in its new column, as on the board).
    try await withThrowingTaskGroup { group in
      for (index, app) in apps.enumerated() {
        group.addTask {
          try await app.test(.router) { client in
            var created: [(id: String, tag: String)] = []
            for number in 0..<4 {
              let card = try await client.send(
                .post, "/cards",
                json: #"{"columnID": "\#(todo)", "title": "\#(index)-\#(number)"}"#,
                as: Card.self)
              created.append((try #require(card.body?.id), try #require(card.tag)))
            }
            for card in created.prefix(2) {
              let moved = try await client.send(
                .put, "/cards/\(card.id)", json: #"{"columnID": "\#(done)"}"#, ifMatch: card.tag,
                as: Card.self)
              #expect(moved.status == .ok)
            }
          }
        }
      }
      try await group.waitForAll()
    }
    await converge(servers, cards: 12, columns: 2)
    // The lists a client reads are the same on every instance, tag included.
    var listTags: [String] = []
    for app in apps {
      let tag = try await app.test(.router) { client in
        try #require(try await client.send(.get, "/cards", as: [Card].self).tag)
      }
      listTags.append(tag)
    }
    #expect(Set(listTags).count == 1)
    let order = servers[0].service.cards.map(\.title)
    for server in servers { try await server.service.shutdown() }
    // And a new instance loads that order from the database.
    let fresh = try await ServerInstance(.postgres(url: url, instance: "web-new"))
    #expect(fresh.service.cards.map(\.title) == order)
    try await fresh.service.shutdown()
  }

}

/// Increments each card's counter `times` times through `client`, retrying on 412; returns the
/// accepted writes per card and the number of 412s.
@Sendable
func increment(_ client: any TestClientProtocol, cards: [String], times: Int, seed: Int)
  async throws -> ([String: Int], Int)
{
  var accepted: [String: Int] = [:]
  var refused = 0
  for step in 0..<times {
    let id = cards[(seed + step) % cards.count]
    while true {
      let current = try await client.send(.get, "/cards/\(id)", as: Card.self)
      let card = try #require(current.body)
      let next = (Int(card.title) ?? 0) + 1
      let reply = try await client.send(
        .put, "/cards/\(id)", json: #"{"title": "\#(next)"}"#, ifMatch: current.tag, as: Card.self)
      if reply.status == .ok {
        accepted[id, default: 0] += 1
        break
      }
      #expect(reply.status == .preconditionFailed)
      refused += 1
    }
  }
  return (accepted, refused)
}

/// The version of each card row.
private func rowVersions(_ url: String) async throws -> [String: Int64] {
  try await TestServer.admin(url) { connection in
    var versions: [String: Int64] = [:]
    for try await (id, version) in try await connection.query(
      "SELECT id, version FROM cards", logger: quiet
    ).decode((String, Int64).self) {
      versions[id] = version
    }
    return versions
  }
}
