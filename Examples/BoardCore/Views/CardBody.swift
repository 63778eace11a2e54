import Foundation
import ReduxKit
import TerminalIO

/// A card's details, and the form that edits it.
@MainActor
enum CardBody {
  /// The card's lines at `width`, at most `height` of them: a long title or notes wrap, so
  /// that they can be read whole; what the screen cannot hold ends in "…".
  static func detail(
    _ state: CardDetailScreen.State, on board: ReadOnlyView<BoardState>, width: Int, height: Int
  ) -> [ScreenLine] {
    guard let card = board.cards[state.cardID] else {
      return [
        ScreenLine(),
        ScreenLine("  card #\(state.cardID) is gone (deleted, or undone)", style: .bold),
      ]
    }
    let room = max(width - 4, 1)
    let lines = BoardText.detail(of: card, on: board).split(separator: "\n").map(String.init)
    // NB: a detail's continuation lines start under its value ("  notes:   ").
    let indent = String(repeating: " ", count: 11)
    let details = lines.dropFirst().flatMap { line in
      DisplayWidth.wrap(line, toWidth: room - indent.count, limit: height).enumerated().map {
        ScreenLine("  " + ($0.offset == 0 ? "" : indent) + $0.element)
      }
    }
    let titleRoom = max(height - 1 - details.count, 1)
    var title = DisplayWidth.wrap(lines[0], toWidth: room, limit: titleRoom + 1).map(String.init)
    if title.count > titleRoom {
      title = Array(title.prefix(titleRoom))
      title[titleRoom - 1] =
        DisplayWidth.prefix(of: title[titleRoom - 1], fittingIn: room - 1) + "…"
    }
    return [ScreenLine()] + title.map { ScreenLine("  " + $0, style: .bold) } + details
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
      let room = max(width - 12, 2)
      // NB: a text too long for the field scrolls: the focused one shows its end (where the
      // cursor is), the others their start; "…" marks the side cut off.
      let visible =
        if isFocused {
          DisplayWidth.suffix(of: field.text, fittingIn: room).startIndex == field.text.startIndex
            ? field.text : "…" + DisplayWidth.suffix(of: field.text, fittingIn: room - 1)
        } else {
          DisplayWidth.prefix(of: field.text, fittingIn: room).endIndex == field.text.endIndex
            ? field.text : DisplayWidth.prefix(of: field.text, fittingIn: room - 1) + "…"
        }
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
