public import Foundation
public import PersistenceSync

/// What `POST /columns` carries.
public struct NewColumn: Decodable, Sendable {
  /// The id the client chose (it shows the column before the server answers); a new one if
  /// `nil`.
  public var id: String?
  public var name: String

  public init(id: String? = nil, name: String) {
    self.id = id
    self.name = name
  }
}

/// What `PUT /columns/:id` carries.
struct ColumnChange: Decodable {
  let name: String
}

/// What `POST /cards` carries.
public struct NewCard: Decodable, Sendable {
  /// The id the client chose (it shows the card before the server answers); a new one if
  /// `nil`.
  public var id: String?
  public var columnID: String
  public var title: String
  public var notes: String?
  public var tags: [String]?
  public var due: Date?

  public init(
    id: String? = nil, columnID: String, title: String, notes: String? = nil,
    tags: [String]? = nil, due: Date? = nil
  ) {
    self.id = id
    self.columnID = columnID
    self.title = title
    self.notes = notes
    self.tags = tags
    self.due = due
  }
}

/// What `PUT /cards/:id` carries: the fields to change; the others stay.
public struct CardChange: Decodable, Sendable {
  public var title: String?
  public var columnID: String?
  public var notes: String?
  public var tags: [String]?
  /// `.some(nil)` (`"due": null`) clears the due date; `nil` (no `due`) leaves it.
  public var due: Date??

  public init(
    title: String? = nil, columnID: String? = nil, notes: String? = nil, tags: [String]? = nil,
    due: Date?? = nil
  ) {
    self.title = title
    self.columnID = columnID
    self.notes = notes
    self.tags = tags
    self.due = due
  }

  private enum CodingKeys: String, CodingKey {
    case title, columnID, notes, tags, due
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    title = try container.decodeIfPresent(String.self, forKey: .title)
    columnID = try container.decodeIfPresent(String.self, forKey: .columnID)
    notes = try container.decodeIfPresent(String.self, forKey: .notes)
    tags = try container.decodeIfPresent([String].self, forKey: .tags)
    due =
      container.contains(.due) ? .some(try container.decodeIfPresent(Date.self, forKey: .due)) : nil
  }
}

/// A card as the API shows it: its fields and its `tag` (the `ETag` a write names in
/// `If-Match`), so that a client holding a list can write any card of it.
struct CardResource: Encodable {
  let card: Card

  private enum CodingKeys: String, CodingKey { case tag }

  func encode(to encoder: any Encoder) throws {
    try card.encode(to: encoder)
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(card.entityTag, forKey: .tag)
  }
}

/// A column as the API shows it, with its `tag`.
struct ColumnResource: Encodable {
  let column: Column

  private enum CodingKeys: String, CodingKey { case tag }

  func encode(to encoder: any Encoder) throws {
    try column.encode(to: encoder)
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(column.entityTag, forKey: .tag)
  }
}

/// What `POST /sync/push` carries: a replica's changes, as `SyncRemote.push` sends them.
public struct SyncPush: Codable, Sendable {
  public let replica: String
  public let changes: [SyncChange]

  public init(replica: String, changes: [SyncChange]) {
    self.replica = replica
    self.changes = changes
  }
}
