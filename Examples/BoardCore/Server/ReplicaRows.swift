package import Foundation

/// A card of a `board-server`'s board as this machine keeps it (`board --server`): a row of the
/// replica's file, and what travels to and from the server as JSON. The server's own fields
/// (its revision, who wrote last) stay on the server: it keeps a row's version itself.
package struct ReplicaCard: Codable, Identifiable, Equatable, Sendable {
  package let id: String
  package var columnID: String
  package var title: String
  package var notes: String
  package var tags: [String]
  package var due: Date?
  package var createdAt: Date
  package var updatedAt: Date

  package init(
    id: String, columnID: String, title: String, notes: String = "", tags: [String] = [],
    due: Date? = nil, createdAt: Date, updatedAt: Date
  ) {
    self.id = id
    self.columnID = columnID
    self.title = title
    self.notes = notes
    self.tags = tags
    self.due = due
    self.createdAt = createdAt
    self.updatedAt = updatedAt
  }
}

/// A column of a `board-server`'s board as this machine keeps it.
package struct ReplicaColumn: Codable, Identifiable, Equatable, Sendable {
  package let id: String
  package var name: String

  package init(id: String, name: String) {
    self.id = id
    self.name = name
  }
}
