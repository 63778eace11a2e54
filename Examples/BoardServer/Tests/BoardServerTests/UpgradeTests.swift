import BoardServerCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ReduxCore
import Testing

/// A board file made by the release before `updatedBy` opens: the migration adds the column,
/// the rows load as they were (no name), and the next write records its client.
@Suite(.timeLimit(.minutes(2)))
@MainActor
struct UpgradeTests {
  /// `Fixtures/board-before-updated-by.sqlite3`: two columns and two cards, written through
  /// board-server's HTTP API (at 82e8594), then `updatedBy` dropped and `board-v5-updated-by`
  /// taken out of `grdb_migrations` with sqlite3: the file of a release whose last SQLite
  /// migration was `board-v4-positions` (that release's `create` made the same columns, and
  /// `addColumns` appended `updatedBy` last).
  static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures/board-before-updated-by.sqlite3")

  @Test func aFileMadeBeforeUpdatedByOpensAndRecordsTheNextClient() async throws {
    try await withTemporaryDatabase { path in
      try FileManager.default.copyItem(atPath: Self.fixture.path, toPath: path)
      let server = try await ServerInstance(.sqlite(path: path))
      let cards = server.service.store.cards
      #expect(cards.map(\.title) == ["Write the release notes", "Second card"])
      #expect(cards.first?.notes == "made by the release before updatedBy")
      #expect(cards.first?.tags == ["docs"])
      #expect(cards.allSatisfy { $0.updatedBy == nil })
      #expect(server.service.store.columns.map(\.name) == ["To do", "Done"])
      let cardID = try #require(cards.first?.id)
      _ = try await server.app.test(.router) { client in
        let response = try await client.execute(
          uri: "/cards/\(cardID)", method: .put,
          headers: [
            .contentType: "application/json", .ifMatch: "*",
            HTTPField.Name("X-Board-Client")!: "carol",
          ],
          body: ByteBuffer(string: #"{"title": "Release notes, written"}"#))
        #expect(response.status == .ok)
      }
      try await server.service.shutdown()

      let restarted = try await ServerInstance(.sqlite(path: path))
      #expect(restarted.service.card(cardID)?.title == "Release notes, written")
      #expect(restarted.service.card(cardID)?.updatedBy == "carol")
      #expect(restarted.service.store.cards.count == 2)
      try await restarted.service.shutdown()
    }
  }
}
