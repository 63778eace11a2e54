package import Foundation
package import ReduxKit

/// What can happen to the board. Actions carry the time they were made at, so reducers stay
/// pure and tests choose the time (and a DevTools replay is deterministic). Codable, so that
/// DevTools records them.
package enum BoardAction: ReduxAction, Codable {
  case addCard(id: Int, columnID: Int, title: String, at: Date)
  /// Changes a card's fields at once: one step to undo.
  case editCard(id: Int, [CardEdit], at: Date)
  case moveCard(id: Int, toColumnID: Int, at: Date)
  case deleteCard(id: Int)
  case addColumn(id: Int, name: String)
  case renameColumn(id: Int, name: String)
  /// Removes an empty column.
  case deleteColumn(id: Int)
  case undo
  case redo
  /// Shows the board a server holds (`board --server`): what it saved, or a change being sent.
  case serverBoard(columns: EntityStore<Column>, cards: EntityStore<Card>)
  /// Columns another board on the same file changed (its change feed), or the file's columns
  /// of a conflict settled for them.
  case remoteColumns(RemoteChanges<Column>)
  /// Cards another board on the same file changed, or the file's cards of a settled conflict.
  case remoteCards(RemoteChanges<Card>)
  /// DevTools' time travel resumed: changes nothing, and its pass saves the board it brought
  /// back (without a skipped action) at once.
  case travelResumed
}

/// One change to a card's fields.
package enum CardEdit: Equatable, Sendable, Codable {
  case title(String)
  case notes(String)
  case tags([String])
  case due(Date?)
}
