import BoardServerCore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// One instance on the embedded default (SQLite): the API's contract, and a restart.
@MainActor
@Suite struct BoardServerTests {
  @Test func theAPIRefusesStaleWritesAndPersistsTheRest() async throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("board-server-\(UUID().uuidString).sqlite").path
    defer {
      for suffix in ["", "-wal", "-shm"] {
        try? FileManager.default.removeItem(atPath: path + suffix)
      }
    }
    let server = try await ServerInstance(.sqlite(path: path))
    let (cardID, tag) = try await server.app.test(.router) { client in
      let column = try await client.send(
        .post, "/columns", json: #"{"name": "Todo"}"#, as: Column.self)
      #expect(column.status == .created)
      let columnID = try #require(column.body?.id)
      let created = try await client.send(
        .post, "/cards", json: #"{"columnID": "\#(columnID)", "title": "write the note"}"#,
        as: Card.self)
      #expect(created.status == .created)
      let id = try #require(created.body?.id)
      let firstTag = try #require(created.tag)
      #expect(firstTag == created.body?.entityTag)
      #expect(firstTag.hasPrefix(#""1-"#))
      #expect(
        try await client.send(
          .post, "/cards", json: #"{"columnID": "nope", "title": "x"}"#, as: Nothing.self
        )
        .status == .badRequest)

      let list = try await client.send(.get, "/cards", as: [Card].self)
      #expect(list.body?.map(\.title) == ["write the note"])
      let listTag = try #require(list.tag)
      #expect(
        try await client.send(.get, "/cards", ifNoneMatch: listTag, as: Nothing.self).status
          == .notModified)

      let change = #"{"title": "write the note, today"}"#
      #expect(
        try await client.send(.put, "/cards/\(id)", json: change, as: Nothing.self).status
          == .preconditionRequired)
      #expect(
        try await client.send(
          .put, "/cards/\(id)", json: change, ifMatch: "W/\(firstTag)", as: Nothing.self
        )
        .status == .badRequest)  // a weak tag never matches a write
      let updated = try await client.send(
        .put, "/cards/\(id)", json: change, ifMatch: firstTag, as: Card.self)
      #expect(updated.status == .ok)
      #expect(updated.body?.revision == 2)
      #expect(updated.tag == updated.body?.entityTag)
      let stale = try await client.send(
        .put, "/cards/\(id)", json: #"{"title": "stale"}"#, ifMatch: firstTag, as: Card.self)
      #expect(stale.status == .preconditionFailed)
      #expect(stale.body?.title == "write the note, today")  // the current card, to retry on
      #expect(stale.tag == updated.tag)
      #expect(
        try await client.send(.get, "/cards", ifNoneMatch: listTag, as: Nothing.self).status == .ok)
      #expect(
        try await client.send(.delete, "/cards/missing", ifMatch: firstTag, as: Nothing.self).status
          == .notFound)
      return (id, try #require(updated.tag))
    }
    try await server.service.shutdown()

    // Committed before each answer: a new instance on the same file has it all.
    let restarted = try await ServerInstance(.sqlite(path: path))
    #expect(restarted.service.card(cardID)?.title == "write the note, today")
    try await restarted.app.test(.router) { client in
      let deleted = try await client.send(
        .delete, "/cards/\(cardID)", ifMatch: tag, as: Nothing.self)
      #expect(deleted.status == .noContent)
    }
    #expect(restarted.service.cards.isEmpty)
    try await restarted.service.shutdown()
  }
}
