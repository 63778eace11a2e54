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

/// What the terminal board (`board --server`) relies on: ids it chose, every field of a card,
/// columns renamed and deleted, and a long poll that ends when the board changes.
@MainActor
@Suite struct BoardClientAPITests {
  @Test func aClientChoosesIdsAndWritesEveryFieldOfACard() async throws {
    try await withTemporaryDatabase { try await clientChoosesIds(path: $0) }
  }

  func clientChoosesIds(path: String) async throws {
    let server = try await ServerInstance(.sqlite(path: path))
    try await server.app.test(.router) { client in
      let todo = try await client.send(
        .post, "/columns", json: #"{"id": "todo", "name": "Todo"}"#, as: Resource<Column>.self)
      #expect(todo.status == .created)
      #expect(todo.body?.value.id == "todo")
      #expect(todo.body?.tag == todo.tag)
      let done = try await client.send(
        .post, "/columns", json: #"{"id": "done", "name": "Done"}"#, as: Column.self)
      #expect(done.status == .created)
      #expect(
        try await client.send(
          .post, "/columns", json: #"{"id": "todo", "name": "again"}"#, as: Nothing.self
        ).status == .conflict)
      #expect(
        try await client.send(
          .post, "/columns", json: #"{"id": "no spaces", "name": "x"}"#, as: Nothing.self
        ).status == .badRequest)

      let due = Date(timeIntervalSinceReferenceDate: 800_000_000)
      let card = try await client.send(
        .post, "/cards",
        json:
          #"{"id": "c1", "columnID": "todo", "title": "one", "notes": "n", "tags": ["a"], "due": "2026-05-09T06:13:20Z"}"#,
        as: Resource<Card>.self)
      #expect(card.status == .created)
      #expect(card.body?.value.notes == "n")
      #expect(card.body?.value.tags == ["a"])
      #expect(card.body?.value.due == due)
      _ = try await client.send(
        .post, "/cards", json: #"{"id": "c2", "columnID": "todo", "title": "two"}"#,
        as: Card.self)

      // Moved to another column, the due date cleared: the other fields stay.
      let moved = try await client.send(
        .put, "/cards/c1", json: #"{"columnID": "done", "due": null}"#,
        ifMatch: card.tag ?? "", as: Resource<Card>.self)
      #expect(moved.status == .ok)
      #expect(moved.body?.value.columnID == "done")
      #expect(moved.body?.value.due == nil)
      #expect(moved.body?.value.notes == "n")
      let cards = try await client.send(.get, "/cards", as: [Resource<Card>].self)
      #expect(cards.body?.map(\.value.id) == ["c2", "c1"])  // a moved card goes last
      #expect(cards.body?.last?.tag == moved.tag)

      // A column is renamed at its tag, and deleted only once empty.
      let renamed = try await client.send(
        .put, "/columns/done", json: #"{"name": "Finished"}"#, ifMatch: done.tag ?? "",
        as: Resource<Column>.self)
      #expect(renamed.body?.value.name == "Finished")
      let stale = try await client.send(
        .delete, "/columns/done", ifMatch: done.tag ?? "", as: Column.self)
      #expect(stale.status == .preconditionFailed)
      #expect(stale.body?.name == "Finished")
      #expect(
        try await client.send(
          .delete, "/columns/done", ifMatch: renamed.tag ?? "", as: Nothing.self
        ).status == .conflict)
      #expect(
        try await client.send(
          .delete, "/cards/c1", ifMatch: moved.tag ?? "", as: Nothing.self
        ).status == .noContent)
      #expect(
        try await client.send(
          .delete, "/columns/done", ifMatch: renamed.tag ?? "", as: Nothing.self
        ).status == .noContent)
    }
    try await server.service.shutdown()
  }

  @Test func theLongPollEndsWhenTheBoardChanges() async throws {
    try await withTemporaryDatabase { try await longPoll(path: $0) }
  }

  func longPoll(path: String) async throws {
    let server = try await ServerInstance(.sqlite(path: path))
    let app = server.app
    try await app.test(.router) { client in
      let first = try #require(
        try await client.send(.get, "/changes", as: BoardTagReply.self).body?.tag)
      // The same tag: the poll waits, and the change below ends it.
      let polling = Task {
        try await client.send(.get, "/changes?after=\(first)", as: BoardTagReply.self)
      }
      _ = try await client.send(
        .post, "/columns", json: #"{"name": "Todo"}"#, as: Column.self)
      let changed = try await polling.value
      #expect(changed.body?.tag != nil)
      #expect(changed.body?.tag != first)
      let now = try await client.send(.get, "/changes", as: BoardTagReply.self).body?.tag
      #expect(changed.body?.tag == now)
    }
    try await server.service.shutdown()
  }
}

/// An entity as the API shows it, with its `tag`.
struct Resource<Value: Decodable & Sendable>: Decodable, Sendable {
  let value: Value
  let tag: String

  private enum CodingKeys: String, CodingKey { case tag }

  init(from decoder: any Decoder) throws {
    value = try Value(from: decoder)
    tag = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .tag)
  }
}

struct BoardTagReply: Decodable, Sendable {
  let tag: String
}
