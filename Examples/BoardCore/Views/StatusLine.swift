import ReduxKit
import TerminalIO

/// The line above the keys: on the left the question being asked or what the last command
/// did (a refusal or failure in words), on the right whether everything is saved (or, while
/// DevTools travel in time, which past board is shown).
@MainActor
enum StatusLine {
  static func line(
    root: BoardScreen.State, screen: BoardScreenModel, session: BoardSession, width: Int
  ) -> ScreenLine {
    let (message, isProblem) = message(root: root, screen: screen, session: session)
    let saving =
      if let position = session.travel?.position {
        // NB: DevTools show a past board: say so where "saved" was, until they resume.
        (text: "DevTools: the board after #\(position), paused", isProblem: true)
      } else {
        switch session.storage {
        case .local(let database): Self.persistence(database.persistence.status)
        case .server(let sync): server(sync)
        }
      }
    return line(message: message, isProblem: isProblem, saving: saving, width: width)
  }

  /// The line of `message` on the left and `saving` on the right.
  static func line(
    message: String, isProblem: Bool, saving: (text: String, isProblem: Bool), width: Int
  ) -> ScreenLine {
    let room = max(width - DisplayWidth.columns(of: saving.text) - 2, 0)
    var line = ScreenLine(
      " " + DisplayWidth.fit(message, toWidth: room) + " ", style: isProblem ? .bold : [])
    line.append(saving.text, style: saving.isProblem ? [.bold, .inverse] : .dim)
    return line
  }

  private static func message(
    root: BoardScreen.State, screen: BoardScreenModel, session: BoardSession
  ) -> (String, isProblem: Bool) {
    if case .board = screen, let prompt = root.prompt {
      switch prompt {
      case .confirmDelete(let id):
        let title = session.board.cards[id]?.title ?? "?"
        return ("delete #\(id) \"\(title)\"? y deletes, any other key keeps it", false)
      case .moveCard(let id):
        let columns = session.board.columns.enumerated().map {
          "\($0.offset + 1) \($0.element.name)"
        }
        return ("move #\(id) to: \(columns.joined(separator: "  ")) (other key: cancel)", false)
      }
    }
    if case .board = screen, let notice = root.notice { return (notice, false) }
    if case .form(let form) = screen, let error = form.state.error { return (error, true) }
    guard let reply = session.lastReply else { return ("", false) }
    // NB: a refusal stays in view after later successes, until another one replaces it.
    guard !reply.isError, let problem = session.lastProblem else {
      return (reply.text, reply.isError)
    }
    return ("\(reply.text) · last refused: \(problem.trimmingPrefix("error: "))", false)
  }

  /// A conflict waiting, whether the server can be reached, the changes it does not have yet.
  static func server(_ replica: BoardReplica) -> (text: String, isProblem: Bool) {
    if let conflict = replica.conflictSummary {
      return (conflict + " · K sends yours, T takes theirs", true)
    }
    if replica.isOffline {
      return ("offline — \(replica.pendingChanges) change(s) to send", true)
    }
    if replica.pendingChanges > 0 { return ("sending \(replica.pendingChanges) change(s)…", false) }
    if let problem = replica.syncProblem { return ("not synced: \(problem)", true) }
    return ("synced", false)
  }

  /// Pending writes, the last flush, the last error.
  static func persistence(_ status: PersistenceStatus) -> (text: String, isProblem: Bool) {
    if let error = status.lastError {
      return ("not saved (\(status.pendingCount) pending, retrying): \(error)", true)
    }
    if status.pendingCount > 0 || status.isFlushing {
      return ("saving \(status.pendingCount) change(s)…", false)
    }
    guard let flush = status.lastFlush else { return ("saved", false) }
    return ("saved (flush #\(flush.number))", false)
  }
}
