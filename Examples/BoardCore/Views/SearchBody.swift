import ReduxKit
import TerminalIO

/// The query as typed and the results of the last search that ran.
@MainActor
enum SearchBody {
  static func lines(
    _ state: SearchScreen.State, on board: ReadOnlyView<BoardState>, height: Int
  ) -> ([ScreenLine], ScreenPosition?) {
    let prompt = ScreenLine("  / " + state.query, style: .bold)
    var lines: [ScreenLine] = ["", prompt, ""]
    switch state.searchedQuery {
    case nil:
      lines.append(ScreenLine("  type words from a title, the notes or a tag", style: .dim))
    case let searched? where state.results.isEmpty:
      lines.append(ScreenLine("  no card matches '\(searched)'"))
    case let searched?:
      lines.append(ScreenLine("  \(state.results.count) card(s) match '\(searched)'", style: .dim))
      for (index, card) in state.results.prefix(max(height - 4, 1)).enumerated() {
        let column = board.columns[card.columnID]?.name ?? "?"
        let text = "  \(BoardText.summary(of: card)) (\(column))"
        lines.append(ScreenLine(text, style: index == state.selected ? .inverse : []))
      }
    }
    return (lines, ScreenPosition(row: 1, column: prompt.displayWidth))
  }
}
