import BoardServerCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The header a client names itself in.
private let boardClientHeader = HTTPField.Name("X-Board-Client")!

/// What the API takes: from the clients that have its token, JSON bodies whose texts stay
/// within the limits, and `If-Match: *` as RFC 9110 defines it.
@MainActor
@Suite struct AccessTests {
  @Test func withATokenOnlyAClientThatSendsItReadsOrWrites() async throws {
    try await withTemporaryDatabase { path in
      let server = try await ServerInstance(.sqlite(path: path), token: "s3cret-token")
      try await server.app.test(.router) { client in
        func status(_ method: HTTPRequest.Method, _ uri: String, authorization: String?)
          async throws -> HTTPResponse.Status
        {
          var headers: HTTPFields = [.contentType: "application/json"]
          if let authorization { headers[.authorization] = authorization }
          let body = method == .post ? ByteBuffer(string: #"{"name": "Todo"}"#) : nil
          return try await client.execute(uri: uri, method: method, headers: headers, body: body)
            .status
        }
        for authorization in [
          nil, "s3cret-token", "Token s3cret-token", "Bearer s3cret", "Bearer ",
        ] {
          #expect(try await status(.get, "/cards", authorization: authorization) == .unauthorized)
          #expect(
            try await status(.post, "/columns", authorization: authorization) == .unauthorized)
        }
        let refused = try await client.execute(uri: "/columns", method: .get)
        #expect(refused.headers[.wwwAuthenticate] == "Bearer")
        // A load balancer's probe reads no card.
        #expect(try await status(.get, "/health", authorization: nil) == .ok)
        #expect(try await status(.get, "/cards", authorization: "Bearer s3cret-token") == .ok)
        #expect(
          try await status(.post, "/columns", authorization: "Bearer s3cret-token") == .created)
      }
      // The refused writes made nothing.
      #expect(server.service.columns.map(\.name) == ["Todo"])
      try await server.service.shutdown()
    }
  }

  @Test func aBodyIsJSONWithinTheLimitsOfEachText() async throws {
    try await withTemporaryDatabase { path in
      let server = try await ServerInstance(.sqlite(path: path))
      try await server.app.test(.router) { client in
        let columnID = try await addColumn(named: "Todo", with: client)
        let json = #"{"columnID": "\#(columnID)", "title": "plain"}"#
        for contentType in [nil, "text/plain", "application/x-www-form-urlencoded"] {
          var headers: HTTPFields = [:]
          if let contentType { headers[.contentType] = contentType }
          let response = try await client.execute(
            uri: "/cards", method: .post, headers: headers, body: ByteBuffer(string: json))
          #expect(response.status == .unsupportedMediaType)
        }
        let charset = try await client.execute(
          uri: "/cards", method: .post,
          headers: [.contentType: "application/json; charset=utf-8"], body: ByteBuffer(string: json)
        )
        #expect(charset.status == .created)

        func card(title: String = "t", notes: String = "", tags: [String] = []) async throws
          -> HTTPResponse.Status
        {
          let body = try JSONSerialization.data(withJSONObject: [
            "columnID": columnID, "title": title, "notes": notes, "tags": tags,
          ])
          return try await client.send(
            .post, "/cards", json: String(decoding: body, as: UTF8.self), as: Nothing.self
          ).status
        }
        let limits = BoardService.textLimits
        #expect(try await card(title: String(repeating: "é", count: 500)) == .created)
        #expect(try await card(title: String(repeating: "é", count: 501)) == .badRequest)
        #expect(try await card(title: String(repeating: "x", count: 1_900_000)) == .badRequest)
        #expect(
          try await card(notes: String(repeating: "n", count: limits["notes"]! + 1)) == .badRequest)
        #expect(
          try await card(tags: [String(repeating: "t", count: limits["tag"]! + 1)]) == .badRequest)
        #expect(
          try await card(tags: (0...BoardService.tagLimit).map { "tag \($0)" }) == .badRequest)
        #expect(try await card(tags: (1...BoardService.tagLimit).map { "tag \($0)" }) == .created)
        #expect(
          try await client.send(
            .post, "/columns", json: #"{"name": "\#(String(repeating: "c", count: 201))"}"#,
            as: Nothing.self
          ).status == .badRequest)
      }
      // The refused ones changed nothing.
      #expect(
        server.service.cards.map(\.title).sorted()
          == ["plain", "t", String(repeating: "é", count: 500)].sorted())
      try await server.service.shutdown()
    }
  }

  @Test func ifMatchStarWritesOverAnyCurrentVersionAndFailsWithoutOne() async throws {
    try await withTemporaryDatabase { path in
      let server = try await ServerInstance(.sqlite(path: path))
      try await server.app.test(.router) { client in
        let columnID = try await addColumn(named: "Todo", with: client)
        let created = try await client.send(
          .post, "/cards", json: #"{"columnID": "\#(columnID)", "title": "one"}"#, as: Card.self)
        let id = try #require(created.body?.id)
        let renamed = try await client.send(
          .put, "/cards/\(id)", json: #"{"title": "two"}"#, ifMatch: "*", as: Card.self)
        #expect(renamed.status == .ok)
        #expect(renamed.body?.title == "two")
        #expect(renamed.tag != created.tag)
        #expect(
          try await client.send(
            .put, "/columns/\(columnID)", json: #"{"name": "Doing"}"#, ifMatch: "*",
            as: Nothing.self
          ).status == .ok)
        #expect(
          try await client.send(.delete, "/cards/\(id)", ifMatch: "*", as: Nothing.self).status
            == .noContent)
        // No current card: `*` matches nothing.
        #expect(
          try await client.send(.delete, "/cards/\(id)", ifMatch: "*", as: Nothing.self).status
            == .preconditionFailed)
        #expect(
          try await client.send(
            .put, "/cards/\(id)", json: #"{"title": "three"}"#, ifMatch: "*", as: Nothing.self
          ).status == .preconditionFailed)
      }
      #expect(server.service.cards.isEmpty)
      #expect(server.service.columns.map(\.name) == ["Doing"])
      try await server.service.shutdown()
    }
  }

  @Test func eachWriteRecordsTheClientThatMadeIt() async throws {
    try await withTemporaryDatabase { path in
      let server = try await ServerInstance(.sqlite(path: path))
      let (columnID, cardID) = try await server.app.test(.router) { client in
        func write(
          _ method: HTTPRequest.Method, _ uri: String, _ json: String, by name: String?,
          ifMatch: String? = nil
        ) async throws -> (HTTPResponse.Status, String?, String?) {
          var headers: HTTPFields = [.contentType: "application/json"]
          if let name { headers[boardClientHeader] = name }
          if let ifMatch { headers[.ifMatch] = ifMatch }
          let response = try await client.execute(
            uri: uri, method: method, headers: headers, body: ByteBuffer(string: json))
          let object =
            try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))
            as? [String: Any]
          return (response.status, object?["id"] as? String, object?["updatedBy"] as? String)
        }
        let (created, columnID, columnBy) = try await write(
          .post, "/columns", #"{"name": "Todo"}"#, by: "alice@laptop")
        #expect(created == .created)
        #expect(columnBy == "alice@laptop")
        let (_, cardID, cardBy) = try await write(
          .post, "/cards", #"{"columnID": "\#(columnID ?? "")", "title": "one"}"#,
          by: "alice@laptop")
        #expect(cardBy == "alice@laptop")
        let (renamed, _, renamedBy) = try await write(
          .put, "/cards/\(cardID ?? "")", #"{"title": "two"}"#, by: "bob", ifMatch: "*")
        #expect(renamed == .ok)
        #expect(renamedBy == "bob")
        // A name too long: refused, nothing changed.
        let (refused, _, _) = try await write(
          .put, "/cards/\(cardID ?? "")", #"{"title": "three"}"#,
          by: String(repeating: "n", count: 65), ifMatch: "*")
        #expect(refused == .badRequest)
        return (try #require(columnID), try #require(cardID))
      }
      #expect(server.service.card(cardID)?.title == "two")
      #expect(server.service.column(columnID)?.updatedBy == "alice@laptop")
      try await server.service.shutdown()
      // Stored: a restart reads who made each last change.
      let restarted = try await ServerInstance(.sqlite(path: path))
      #expect(restarted.service.card(cardID)?.updatedBy == "bob")
      #expect(restarted.service.column(columnID)?.updatedBy == "alice@laptop")
      // A client that names no one leaves no name.
      _ = try await restarted.app.test(.router) { client in
        try await client.send(
          .put, "/cards/\(cardID)", json: #"{"title": "four"}"#, ifMatch: "*", as: Nothing.self)
      }
      #expect(restarted.service.card(cardID)?.updatedBy == nil)
      try await restarted.service.shutdown()
    }
  }

  /// Adds a column; its id.
  private func addColumn(named name: String, with client: some TestClientProtocol) async throws
    -> String
  {
    try #require(
      try await client.send(.post, "/columns", json: #"{"name": "\#(name)"}"#, as: Column.self)
        .body?.id)
  }
}
