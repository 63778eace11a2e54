import ReduxKit
import TerminalIO

/// The columns side by side, the selected card highlighted; one column at a time when the
/// terminal is too narrow for all of them.
@MainActor
enum BoardBody {
  /// The narrowest a column is drawn side by side.
  static let minimumColumnWidth = 16

  /// How many cards a column shows at `size`: the body's height less the blank line, the
  /// column's title, and the line that says how many cards are out of view.
  static func pageRows(at size: TerminalSize) -> Int {
    max(BoardFrame.bodyHeight(at: size) - 3, 1)
  }

  /// The most cards a column shows at `size`: all of them when they fit.
  static func shownRows(at size: TerminalSize) -> Int {
    max(BoardFrame.bodyHeight(at: size) - 2, 1)
  }

  static func lines(
    _ state: BoardScreen.State, on session: BoardSession, width: Int, height: Int
  ) -> [ScreenLine] {
    let columns = Array(session.board.columns)
    guard !columns.isEmpty else { return noColumns }
    let selection = BoardSelection(state, on: session)
    return lines(
      columns: columns, selected: (selection.column, selection.row), width: width, height: height
    ) { index in
      let cards = index == selection.column ? selection.cards : session.cards(in: columns[index])
      return (cards, cards.count)
    }
  }

  /// The body of the first frame, drawn from `preview` while the board loads: what ``lines(_:on:width:height:)``
  /// draws once it has, with the first card of the first column selected.
  static func lines(of preview: BoardPreview, width: Int, height: Int) -> [ScreenLine] {
    guard !preview.columns.isEmpty else { return noColumns }
    return lines(columns: preview.columns, selected: (0, 0), width: width, height: height) {
      preview.page(of: preview.columns[$0])
    }
  }

  private static let noColumns: [ScreenLine] = [
    "", "  no columns: add one in line mode (board --lines)",
  ]

  /// - Parameters:
  ///   - selected: The selected column's index, and the selected card's row in it.
  ///   - page: The cards of the column at an index, at least through the last row shown, and
  ///     how many it holds.
  private static func lines(
    columns: [Column], selected: (column: Int, row: Int), width: Int, height: Int,
    page: (Int) -> (cards: [Card], count: Int)
  ) -> [ScreenLine] {
    let fitsAll = width / columns.count >= minimumColumnWidth
    let shown = fitsAll ? Array(columns.indices) : [selected.column]
    let columnWidth = fitsAll ? width / columns.count : width
    let rows = height - 2
    let blocks = shown.map { index in
      let column = columns[index]
      let (cards, count) = page(index)
      let isSelected = index == selected.column
      var title = "\(column.name) (\(count))"
      if !fitsAll { title = "◀ \(title) \(index + 1)/\(columns.count) ▶" }
      var block = [
        ScreenLine(
          " " + DisplayWidth.fit(title, toWidth: columnWidth - 2) + " ",
          style: isSelected ? [.bold, .underline] : .bold)
      ]
      // NB: a column that does not fit keeps its last line to say how many cards are out of
      // view, and scrolls so that the selected card stays in view. Only the rows shown are
      // drawn.
      let fits = count <= rows
      let capacity = fits ? rows : max(rows - 1, 1)
      let first = isSelected ? max(0, min(selected.row - capacity + 1, count - capacity)) : 0
      let last = min(first + capacity, count)
      for row in first..<last {
        let text =
          " " + DisplayWidth.fit(BoardText.summary(of: cards[row]), toWidth: columnWidth - 2) + " "
        let highlighted = isSelected && row == selected.row
        block.append(ScreenLine(text, style: highlighted ? .inverse : []))
      }
      if !fits {
        let outOfView = [
          first > 0 ? "↑ \(first) above" : nil,
          last < count ? "↓ \(count - last) more" : nil,
        ].compactMap { $0 }
        block.append(
          ScreenLine(
            " " + DisplayWidth.fit(outOfView.joined(separator: "  "), toWidth: columnWidth - 2),
            style: .dim))
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
