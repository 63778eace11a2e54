package import Foundation

/// The board server's HTTP API (`board-server`, Examples/BoardServer), as `board --server`
/// uses it. ``HTTPBoardServer`` speaks it over the network; tests put a fake behind it.
package protocol BoardServerAPI: Sendable {
  /// The whole board: its cards, then its columns (so every card's column is in it: a column is
  /// deleted only once empty).
  func board() async throws(BoardServerError) -> ServerBoard
  /// The board's tag once it differs from `tag`, or after the server's long-poll bound.
  func changes(after tag: String?) async throws(BoardServerError) -> String
  func createColumn(id: String, name: String) async throws(BoardServerError) -> ServerColumn
  func renameColumn(id: String, tag: String, name: String) async throws(BoardServerError)
    -> ServerColumn
  func deleteColumn(id: String, tag: String) async throws(BoardServerError)
  func createCard(_ card: ServerCard) async throws(BoardServerError) -> ServerCard
  func updateCard(id: String, tag: String, _ change: ServerCardChange)
    async throws(BoardServerError) -> ServerCard
  func deleteCard(id: String, tag: String) async throws(BoardServerError)
}

/// The board as the server holds it: the value cached under ``BoardServerSync/key``.
package struct ServerBoard: Sendable, Equatable {
  package var columns: [ServerColumn]
  package var cards: [ServerCard]

  package init(columns: [ServerColumn], cards: [ServerCard]) {
    self.columns = columns
    self.cards = cards
  }
}

/// A column as the server shows it, with the tag a write names (`If-Match`).
package struct ServerColumn: Codable, Sendable, Equatable {
  package let id: String
  package var name: String
  package var tag: String

  package init(id: String, name: String, tag: String) {
    self.id = id
    self.name = name
    self.tag = tag
  }
}

/// A card as the server shows it, with the tag a write names (`If-Match`).
package struct ServerCard: Codable, Sendable, Equatable {
  package let id: String
  package var columnID: String
  package var title: String
  package var notes: String
  package var tags: [String]
  package var due: Date?
  package var createdAt: Date
  package var updatedAt: Date
  /// Empty while the card is shown before the server has answered its creation.
  package var tag: String

  package init(
    id: String, columnID: String, title: String, notes: String = "", tags: [String] = [],
    due: Date? = nil, createdAt: Date, updatedAt: Date, tag: String
  ) {
    self.id = id
    self.columnID = columnID
    self.title = title
    self.notes = notes
    self.tags = tags
    self.due = due
    self.createdAt = createdAt
    self.updatedAt = updatedAt
    self.tag = tag
  }
}

/// The fields a card update changes; the others stay.
package struct ServerCardChange: Encodable, Sendable, Equatable {
  package var title: String?
  package var columnID: String?
  package var notes: String?
  package var tags: [String]?
  /// `.some(nil)` clears the due date.
  package var due: Date??

  package init() {}

  private enum CodingKeys: String, CodingKey { case title, columnID, notes, tags, due }

  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encodeIfPresent(title, forKey: .title)
    try container.encodeIfPresent(columnID, forKey: .columnID)
    try container.encodeIfPresent(notes, forKey: .notes)
    try container.encodeIfPresent(tags, forKey: .tags)
    // NB: `null` clears the date; no key leaves it.
    if let due { try container.encode(due, forKey: .due) }
  }
}

/// Why the server did not do what the board asked.
package enum BoardServerError: Error, Equatable, CustomStringConvertible {
  /// The server could not be reached, or did not answer in time.
  case unreachable(String)
  /// Someone changed it first (412): the board shows the server's version now.
  case changedElsewhere
  /// It no longer exists on the server (404).
  case gone
  /// The server refused the request as it stands (400, 409: a column not empty, say).
  case refused(status: Int, message: String)
  /// The server failed (5xx), or answered what the board cannot read.
  case server(status: Int, message: String)

  package var description: String {
    switch self {
    case .unreachable(let reason): "the server cannot be reached: \(reason)"
    case .changedElsewhere: "someone changed it first; the board now shows their version"
    case .gone: "it was deleted elsewhere"
    case .refused(_, let message): "the server refused: \(message)"
    case .server(let status, let message): "the server failed (\(status)): \(message)"
    }
  }
}
