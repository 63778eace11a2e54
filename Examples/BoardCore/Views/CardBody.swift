import Foundation
import ReduxKit
import TerminalIO

/// A card's details, and the form that edits it.
@MainActor
enum CardBody {
  static func detail(_ state: CardDetailScreen.State, on board: ReadOnlyView<BoardState>)
    -> [ScreenLine]
  {
    guard let card = board.cards[state.cardID] else {
      return [
        ScreenLine(),
        ScreenLine("  card #\(state.cardID) is gone (deleted, or undone)", style: .bold),
      ]
    }
    let lines = BoardText.detail(of: card, on: board).split(separator: "\n").map(String.init)
    let title = ScreenLine("  " + lines[0], style: .bold)
    return [ScreenLine(), title] + lines.dropFirst().map { ScreenLine("  " + $0) }
  }

  /// The form's lines, and where the cursor blinks (the end of the focused field).
  static func form(_ state: CardFormScreen.State, width: Int) -> ([ScreenLine], ScreenPosition?) {
    var lines: [ScreenLine] = [""]
    if case .newCard(let column) = state.purpose {
      lines.append(ScreenLine("  a new card in \(column)"))
    }
    if case .edit(let card) = state.purpose { lines.append(ScreenLine("  card #\(card.id)")) }
    lines.append("")
    var cursor: ScreenPosition?
    for (index, field) in state.fields.enumerated() {
      let label = "  " + DisplayWidth.fit(field.name.rawValue.capitalized + ":", toWidth: 8)
      let isFocused = index == state.focus
      var line = ScreenLine(label, style: isFocused ? .bold : [])
      let visible = String(DisplayWidth.prefix(of: field.text, fittingIn: max(width - 12, 1)))
      line.append(visible, style: isFocused ? .underline : [])
      if isFocused {
        cursor = ScreenPosition(row: lines.count, column: line.displayWidth)
      }
      lines.append(line)
    }
    lines.append("")
    if state.fields.contains(where: { $0.name == .due }) {
      lines.append(
        ScreenLine("  due: YYYY-MM-DD, or empty; tags: words separated by spaces", style: .dim))
    }
    if let error = state.error { lines.append(ScreenLine("  " + error, style: .bold)) }
    return (lines, cursor)
  }
}
