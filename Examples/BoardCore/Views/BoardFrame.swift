import ReduxKit
import TerminalIO

/// The whole screen: a title bar, the top screen's body, the status line and the keys of the
/// top screen. A pure function of the state, so the renderer redraws only what changed.
@MainActor
enum BoardFrame {
  /// The smallest terminal the layout fits in.
  static let minimumSize = TerminalSize(columns: 30, rows: 8)

  static func frame(
    of screen: BoardScreenModel, root: BoardScreen.State, session: BoardSession,
    size: TerminalSize
  ) -> ScreenFrame {
    guard size.columns >= minimumSize.columns, size.rows >= minimumSize.rows else {
      return tooSmall(size)
    }
    let width = size.columns
    let bodyHeight = bodyHeight(at: size)
    let body: [ScreenLine]
    var cursor: ScreenPosition?
    let title: String
    let keys: String
    switch screen {
    case .board(let board):
      title = "Board"
      body = BoardBody.lines(board.state, on: session, width: width, height: bodyHeight)
      keys = boardKeys(canUndo: session.canUndo)
    case .detail(let detail):
      title = "Card #\(detail.state.cardID)"
      body = CardBody.detail(
        detail.state, on: session.board, width: width, height: bodyHeight)
      keys = "e edit  Esc back"
    case .form(let form):
      title = form.state.isNewCard ? "New card" : "Edit card"
      (body, cursor) = CardBody.form(form.state, width: width)
      keys =
        form.state.fields.count > 1 ? "Tab next field  ⏎ save  Esc cancel" : "⏎ save  Esc cancel"
    case .search(let search):
      title = "Search"
      (body, cursor) = SearchBody.lines(search.state, on: session.board, height: bodyHeight)
      keys = "type to search  ↑↓ select  ⏎ open  Esc back"
    case .help:
      title = "Help"
      body = HelpScreen.keys.map {
        ScreenLine("  " + DisplayWidth.fit($0.key, toWidth: 18) + $0.meaning)
      }
      keys = "any key closes"
    }
    return frame(
      title: title, body: body, cursor: cursor, keys: keys,
      status: StatusLine.line(root: root, screen: screen, session: session, width: width),
      devToolsPage: session.devToolsPage, size: size)
  }

  /// The first frame of a board on its file, drawn from `preview` while the board loads: the
  /// frame ``frame(of:root:session:size:)`` draws once it has (the board screen, nothing
  /// asked yet, `saving` on the right of the status line).
  static func frame(
    of preview: BoardPreview, saving: (text: String, isProblem: Bool), size: TerminalSize
  ) -> ScreenFrame {
    guard size.columns >= minimumSize.columns, size.rows >= minimumSize.rows else {
      return tooSmall(size)
    }
    return frame(
      title: "Board",
      body: BoardBody.lines(of: preview, width: size.columns, height: bodyHeight(at: size)),
      cursor: nil, keys: boardKeys(canUndo: true),
      status: StatusLine.line(message: "", isProblem: false, saving: saving, width: size.columns),
      devToolsPage: nil, size: size)
  }

  /// The board screen's keys.
  private static func boardKeys(canUndo: Bool) -> String {
    // NB: a server keeps no history: no undo to offer.
    let undo = canUndo ? "  u undo  r redo" : ""
    return "←↓↑→ select  n new  ⏎ open  e edit  m move  d delete  / search\(undo)  ? help  q quit"
  }

  /// A frame of a screen: the title bar, the body (cut or filled to the body's height), the
  /// status line and the keys.
  private static func frame(
    title: String, body: [ScreenLine], cursor: ScreenPosition?, keys: String,
    status: ScreenLine, devToolsPage: String?, size: TerminalSize
  ) -> ScreenFrame {
    let width = size.columns
    let bodyHeight = bodyHeight(at: size)
    var body = Array(body.prefix(bodyHeight))
    body += Array(repeating: ScreenLine(), count: bodyHeight - body.count)
    var header = ScreenLine(" ReduxKit board · \(title)", style: .bold)
    // NB: the DevTools page's address stays in view (the status line changes with every key).
    if let page = devToolsPage,
      header.displayWidth + DisplayWidth.columns(of: page) + 4 <= width
    {
      header.append(
        String(
          repeating: " ", count: width - header.displayWidth - DisplayWidth.columns(of: page) - 1))
      header.append(page + " ")
    }
    header = header.padded(toWidth: width, style: .inverse)
    let footer = ScreenLine(" " + keys, style: .dim)
    return ScreenFrame(
      lines: [header] + body + [status, footer],
      cursor: cursor.map { ScreenPosition(row: $0.row + 1, column: $0.column) })
  }

  /// The rows between the title bar and the status line.
  static func bodyHeight(at size: TerminalSize) -> Int {
    size.rows - 3
  }

  private static func tooSmall(_ size: TerminalSize) -> ScreenFrame {
    let minimum = minimumSize
    let lines: [ScreenLine] = [
      ScreenLine("board needs \(minimum.columns)x\(minimum.rows)", style: .bold),
      ScreenLine("this terminal: \(size)"),
      ScreenLine("widen it, or q"),
    ]
    return ScreenFrame(lines: Array(lines.prefix(max(size.rows, 1))))
  }
}
