import Foundation
import ReduxKit

/// The board in words, as line mode prints it.
@MainActor
enum BoardText {
  static func list(_ columns: [Column], cards: (Column) -> [Card]) -> String {
    columns.map { column in
      let cards = cards(column)
      let lines = cards.map { "  " + summary(of: $0) }
      return (["\(column.name) (\(cards.count))"] + lines).joined(separator: "\n")
    }.joined(separator: "\n")
  }

  static func summary(of card: Card) -> String {
    var line = "#\(card.id) \(card.title)"
    if !card.tags.isEmpty { line += " " + card.tags.map { "[\($0)]" }.joined(separator: " ") }
    if let due = card.due { line += " due \(day(due))" }
    return line
  }

  static func detail(of card: Card, on board: ReadOnlyView<BoardState>) -> String {
    let column = board.columns[card.columnID]?.name ?? "?"
    return """
      #\(card.id) \(card.title)
        column:  \(column)
        tags:    \(card.tags.isEmpty ? "none" : card.tags.joined(separator: ", "))
        due:     \(card.due.map(day) ?? "none")
        notes:   \(card.notes.isEmpty ? "none" : card.notes)
        created: \(time(card.createdAt))
        updated: \(time(card.updatedAt))
      """
  }

  static func searchResults(_ cards: [Card], for text: String, on board: ReadOnlyView<BoardState>)
    -> String
  {
    guard !cards.isEmpty else { return "no card matches '\(text)'" }
    return
      (["\(cards.count) card(s) match '\(text)':"]
      + cards.map { "  \(summary(of: $0)) (\(board.columns[$0.columnID]?.name ?? "?"))" })
      .joined(separator: "\n")
  }

  static func stats(_ stats: BoardStats) -> String {
    let columns = stats.perColumn.map { "  \($0.name): \($0.count)" }
    let tags = stats.perTag.isEmpty ? ["  none"] : stats.perTag.map { "  \($0.tag): \($0.count)" }
    return (["cards per column:"] + columns + ["cards per tag:"] + tags).joined(separator: "\n")
  }

  /// What changed between two boards, in words, the first few changes: what an undo or a redo
  /// restored ("#3 now in Todo", "#4 \"Fix bug\" removed").
  ///
  /// - Complexity: O(*n*) for *n* cards: done once per undo, never per frame.
  static func difference(from before: BoardState.Snapshot, to after: BoardState.Snapshot)
    -> String
  {
    var changes: [String] = []
    for card in after.cards {
      guard let old = before.cards[card.id] else {
        changes.append("#\(card.id) \(quoted(card.title)) restored")
        continue
      }
      guard old != card else { continue }
      changes.append(
        old.columnID != card.columnID
          ? "#\(card.id) now in \(after.columns[card.columnID]?.name ?? "?")"
          : "#\(card.id) \(quoted(card.title)) edited")
    }
    for card in before.cards where after.cards[card.id] == nil {
      changes.append("#\(card.id) \(quoted(card.title)) removed")
    }
    for column in after.columns where before.columns[column.id] != column {
      changes.append(
        "column \(column.name) \(before.columns[column.id] == nil ? "restored" : "renamed")")
    }
    for column in before.columns where after.columns[column.id] == nil {
      changes.append("column \(column.name) removed")
    }
    guard !changes.isEmpty else { return "no change" }
    let shown = changes.prefix(3).joined(separator: ", ")
    return changes.count > 3 ? shown + " and \(changes.count - 3) more" : shown
  }

  /// A title in quotes, cut to a length a reply line can hold.
  static func quoted(_ title: String) -> String {
    "\"" + (title.count > 40 ? title.prefix(39) + "…" : title) + "\""
  }

  /// `text` on one line, as a field holds it: each line end and tab a space, other control
  /// characters dropped (a paste may hold any of them).
  ///
  /// - Complexity: O(*n*), where *n* is the length of `text`.
  nonisolated static func oneLine(_ text: String) -> String {
    var line = ""
    line.reserveCapacity(text.utf8.count)
    for character in text {
      if character.isNewline || character == "\t" {
        line.append(" ")
      } else if !(character.unicodeScalars.first?.properties.generalCategory == .control) {
        line.append(character)
      }
    }
    return line
  }

  nonisolated static func day(_ date: Date) -> String {
    date.formatted(.iso8601.year().month().day())
  }

  nonisolated static func time(_ date: Date) -> String {
    date.formatted(.iso8601)
  }
}
