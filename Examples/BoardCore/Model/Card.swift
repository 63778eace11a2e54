import Foundation

/// A card on the board: what a person writes down to track.
///
/// Its place is its column and, within the column, the order of the board's `EntityStore`
/// (a card moved to another column goes last there, as a deleted-then-inserted entity does).
struct Card: Codable, Identifiable, Equatable, Sendable {
  let id: Int
  var columnID: Int
  var title: String
  var notes = ""
  var tags: [String] = []
  var due: Date?
  let createdAt: Date
  var updatedAt: Date
}

/// A column of the board (Todo, Doing, Done by default; the user may add and rename columns).
struct Column: Codable, Identifiable, Equatable, Sendable {
  let id: Int
  var name: String
}
