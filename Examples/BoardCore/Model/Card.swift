package import Foundation

/// A card on the board: what a person writes down to track.
///
/// Its place is its column and, within the column, the order of the board's `EntityStore`
/// (a card moved to another column goes last there, as a deleted-then-inserted entity does).
package struct Card: Codable, Identifiable, Equatable, Sendable {
  package let id: Int
  package var columnID: Int
  var title: String
  var notes = ""
  var tags: [String] = []
  var due: Date?
  let createdAt: Date
  var updatedAt: Date

  /// A card with every field given (BoardBenchmarks writes cards this way).
  package init(
    id: Int, columnID: Int, title: String, notes: String = "", tags: [String] = [],
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

/// A column of the board (Todo, Doing, Done by default; the user may add and rename columns).
package struct Column: Codable, Identifiable, Equatable, Sendable {
  package let id: Int
  var name: String
}
