import Foundation

/// One thing a person asks the board to do, in line mode or from a full-screen prompt.
package enum Command: Equatable {
  case add(column: String, title: String)
  case move(card: Int, column: String)
  /// Changes one or more of a card's fields (the form saves them as one change).
  case edit(card: Int, [CardEdit])
  case delete(card: Int)
  case show(card: Int)
  case list(column: String?)
  case search(String)
  case stats
  /// Whether everything is saved (with `--server`: sent, or how many changes wait, and the
  /// conflicts).
  case status
  case addColumn(String)
  case renameColumn(from: String, to: String)
  case deleteColumn(String)
  case undo
  case redo
  /// Settles a conflict with the server (`board --server`) on a card, or the first one waiting
  /// (`nil`): `keepingMine` sends the row as it is here over the server's, otherwise the
  /// server's replaces it here.
  case resolve(card: Int?, keepingMine: Bool)
  case help
  case quit

  /// The commands, as `board --help` and `help` list them.
  package static let usage = """
    Commands (one per line; quote words with spaces, or let the title run to the end of the line):
      add COLUMN TITLE...          add a card:          add Todo "Write docs"
      move CARD COLUMN             move a card:         move 3 Done
      title CARD TITLE...          rename a card
      note CARD TEXT...            set a card's notes
      tag CARD TAG...              set a card's tags (none: tag 3)
      due CARD YYYY-MM-DD|none     set or clear a due date
      delete CARD                  delete a card
      show CARD                    a card's details
      list [COLUMN]                the board, or one column
      search TEXT...               cards whose title, notes or tags contain the text
      stats                        cards per column and per tag
      status                       saved? with --server: sent, offline, conflicts
      column add NAME | column rename OLD NEW | column delete NAME
      undo | redo                  step back or forward through your changes
      keep [CARD] | theirs [CARD]  with --server: settle a conflict (the first one without CARD)
                                   with yours, or with the server's
      help | quit
    """
}
