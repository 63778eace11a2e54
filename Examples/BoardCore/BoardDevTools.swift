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
    return BoardRecorder(app: "board", session: session) { $0.undoSnapshot }
  }
}
