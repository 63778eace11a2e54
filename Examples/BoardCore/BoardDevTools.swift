package import Foundation
package import Logging
import ReduxKit

/// `board --record FILE` and `board --devtools`: the board recorded by ReduxKit DevTools, to a
/// session file, to a page in the browser, or both.
package struct BoardDevTools {
  /// Serves the DevTools page over the recording and the time travel; returns the page's
  /// address once it listens. The board's command line provides it (the server is not part
  /// of BoardCore, so that the board's tests build without Hummingbird). The server logs to
  /// the board's logger: nothing it says may land on the full screen.
  package typealias Serve = @MainActor (BoardRecorder, BoardTimeTravel, Logger) async throws -> URL

  /// `--record FILE`: the session file, as JSON lines (`reduxkit-inspect` reads it).
  let sessionPath: String?
  /// `--devtools`: serves the page.
  let serve: Serve?

  package init(sessionPath: String?, serve: Serve?) {
    self.sessionPath = sessionPath
    self.serve = serve
  }

  /// The recorder of a board, writing `sessionPath` when there is one.
  ///
  /// - Throws: `DevToolsSessionError` when the session file cannot be created.
  func makeRecorder() throws -> BoardRecorder {
    let session = try sessionPath.map {
      try DevToolsSessionWriter(url: URL(fileURLWithPath: $0), app: "board")
    }
    return BoardRecorder(
      app: "board", session: session, summary: { $0.summary }, snapshot: { $0.undoSnapshot })
  }
}

extension BoardAction {
  /// What the action touched, as a timeline's row says it: `#12 → column 3`.
  var summary: String? {
    switch self {
    case .addCard(let id, let columnID, let title, _): "#\(id) \"\(title)\" in column \(columnID)"
    case .editCard(let id, let edits, _):
      "#\(id): " + edits.map(\.field).joined(separator: ", ")
    case .moveCard(let id, let columnID, _): "#\(id) → column \(columnID)"
    case .deleteCard(let id): "#\(id)"
    case .addColumn(let id, let name), .renameColumn(let id, let name): "column \(id) \"\(name)\""
    case .deleteColumn(let id): "column \(id)"
    case .remoteCards(let changes): "\(changes.changes.count) card(s) from another board"
    case .remoteColumns(let changes): "\(changes.changes.count) column(s) from another board"
    case .serverBoard(let columns, let cards):
      "the server's board: \(cards.count) card(s), \(columns.count) column(s)"
    case .undo, .redo, .travelResumed: nil
    }
  }
}

extension CardEdit {
  /// The field an edit sets, and its new value when it is short.
  var field: String {
    switch self {
    case .title(let title): "title \"\(title.count > 40 ? title.prefix(39) + "…" : title)\""
    case .notes: "notes"
    case .tags(let tags): "tags " + tags.joined(separator: " ")
    case .due(let due): "due " + (due.map { "\($0)".prefix(10) } ?? "none")
    }
  }
}
