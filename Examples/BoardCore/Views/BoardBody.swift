import ReduxKit
import TerminalIO

/// The columns side by side, the selected card highlighted; one column at a time when the
/// terminal is too narrow for all of them.
@MainActor
enum BoardBody {
  /// The narrowest a column is drawn side by side.
  static let minimumColumnWidth = 16

  static func lines(
    _ state: BoardScreen.State, on board: ReadOnlyView<BoardState>, width: Int, height: Int
  ) -> [ScreenLine] {
    let columns = Array(board.columns)
    guard !columns.isEmpty else {
      return ["", "  no columns: add one in line mode (board --lines)"]
    }
    let selection = BoardSelection(state, on: board)
    let fitsAll = width / columns.count >= minimumColumnWidth
    let shown = fitsAll ? Array(columns.indices) : [selection.column]
    let columnWidth = fitsAll ? width / columns.count : width
    let rows = height - 2
    let blocks = shown.map { index in
      let column = columns[index]
      let cards = index == selection.column ? selection.cards : board.cards(in: column)
      let isSelected = index == selection.column
      var title = "\(column.name) (\(cards.count))"
      if !fitsAll { title = "◀ \(title) \(index + 1)/\(columns.count) ▶" }
      var block = [
        ScreenLine(
          " " + DisplayWidth.fit(title, toWidth: columnWidth - 2) + " ",
          style: isSelected ? [.bold, .underline] : .bold)
      ]
      // NB: a long column scrolls so that the selected card stays in view.
      let first = isSelected ? max(0, min(selection.row - rows + 1, cards.count - rows)) : 0
      for (offset, card) in cards.dropFirst(first).prefix(rows).enumerated() {
        let text =
          " " + DisplayWidth.fit(BoardText.summary(of: card), toWidth: columnWidth - 2) + " "
        let highlighted = isSelected && first + offset == selection.row
        block.append(ScreenLine(text, style: highlighted ? .inverse : []))
      }
      if cards.count > first + rows {
        block[block.count - 1] = ScreenLine(
          " "
            + DisplayWidth.fit("… \(cards.count - first - rows + 1) more", toWidth: columnWidth - 2),
          style: .dim)
      }
      return block
    }
    let height = blocks.map(\.count).max() ?? 0
    return [""]
      + (0..<height).map { row in
        blocks.reduce(into: ScreenLine()) { line, block in
          line.append(
            row < block.count
              ? block[row].padded(toWidth: columnWidth) : ScreenLine().padded(toWidth: columnWidth))
        }
      }
  }
}
