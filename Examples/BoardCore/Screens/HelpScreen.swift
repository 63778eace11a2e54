import Observation
package import ReduxKit
package import TerminalIO

/// Every key of every screen; any key closes it.
package struct HelpScreen: FeatureReducer {
  @Observable
  package final class State: NavigatableState {
    package typealias R = HelpScreen
  }

  package enum Action: Sendable {
    case key(Key)
  }

  package func reduce(into state: State, action: Action) -> Procedure<Action, State> {
    dismiss(with: state)
    return .none
  }

  /// The keys, as the help screen lists them.
  package nonisolated static let keys: [(key: String, meaning: String)] = [
    ("←↓↑→ or h j k l", "move the selection"),
    ("PgDn / PgUp", "a page down / up (or Ctrl-F / Ctrl-B)"),
    ("g or Home, G or End", "the column's first / last card"),
    ("n", "new card in the selected column"),
    ("Enter", "open the selected card"),
    ("e", "edit the selected card"),
    ("m then 1-9", "move the card to column 1-9"),
    ("d then y", "delete the card"),
    ("/", "search as you type (Enter opens a result)"),
    ("u / r", "undo / redo"),
    ("K / T", "with --server, a conflict: send yours / take the server's"),
    ("?", "this help"),
    ("Esc", "back, or cancel a form"),
    ("q or Ctrl-C", "quit (everything is saved first)"),
    ("columns", "add, rename, delete: in line mode (board --lines, then help)"),
  ]
}
