import ReduxKit

/// The inbox as a terminal renders it: commands in, screens out.
///
/// Commands: `open N`, `reply`, `type TEXT`, `send`, `cancel`, `back`, `home`, `stack`, `help`,
/// `quit`.
@MainActor
final class InboxDemo {
  static let help =
    "commands: open N | reply | type TEXT | send | cancel | back | home | stack | help | quit"

  let inbox = ViewModelOf<Inbox>(initialState: Inbox.State(), reducer: Inbox())
  let navigator: Navigator<String>

  init() {
    let flow = NavigationFlow<String>(
      stateTypeList: [Inbox.State.self, Message.State.self, Reply.State.self]
    ) { viewModel in
      switch viewModel {
      case let inbox as ViewModelOf<Inbox>:
        inbox.messages.keys.sorted().map { id in
          "  [\(id)] \(inbox.messages[id]!)\(inbox.replied.contains(id) ? "  ↩︎ replied" : "")"
        }
        .joined(separator: "\n")
      case let message as ViewModelOf<Message>:
        "  \(message.subject)" + message.sentReplies.map { "\n    ↳ \($0)" }.joined()
      case let reply as ViewModelOf<Reply>:
        "  > \(reply.text)_"
      default:
        nil
      }
    }
    navigator = Navigator(flow: flow, root: inbox)
  }

  /// Runs one command and returns what the terminal shows after it.
  func run(_ command: String) -> String {
    let words = command.split(separator: " ", maxSplits: 1).map(String.init)
    switch (words.first ?? "", words.dropFirst().first) {
    case ("open", let id?) where Int(id) != nil: inbox.send(.open(Int(id)!))
    case ("reply", nil): (navigator.top as? ViewModelOf<Message>)?.send(.compose)
    case ("type", let text?): (navigator.top as? ViewModelOf<Reply>)?.send(.type(text))
    case ("send", nil): (navigator.top as? ViewModelOf<Reply>)?.send(.send)
    case ("cancel", nil): (navigator.top as? ViewModelOf<Reply>)?.send(.cancel)
    case ("back", nil): navigator.pop()
    case ("home", nil): navigator.popToRoot()
    case ("stack", nil):
      return navigator.routeStack.map { "\($0.style) \($0.state)" }.joined(separator: "\n")
    case ("help", nil): return Self.help
    case ("", _): return ""
    default: return "unknown command '\(command)' (\(Self.help))"
    }
    return render()
  }

  /// The screens, bottom first, each under a title bar; then any notice.
  func render() -> String {
    let titles =
      ["Inbox"]
      + navigator.stack.map { entry in
        "\(entry.style == .present ? "Reply" : "Message") (\(entry.style))"
      }
    var lines = zip(titles, navigator.screens).map { "── \($0) ──\n\($1)" }
    lines += inbox.state.notices.map { "! \($0)" }
    inbox.state.notices.removeAll()
    return lines.joined(separator: "\n")
  }
}
