import ArgumentParser
import BoardCore
import Foundation

/// `swift run board`: a kanban board for the terminal, on every ReduxKit package.
@main
struct BoardApp: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "board",
    abstract: "A kanban board for the terminal, saved to SQLite, built on ReduxKit.",
    discussion: """
      Full screen when standard input and output are a terminal; keys are shown at the bottom \
      and `?` lists them. Line mode otherwise (pipes, scripts, CI), or with --lines.

      Keys (full screen):
      \(HelpScreen.keys.map { "  " + $0.key.padding(toLength: 18, withPad: " ", startingAt: 0) + $0.meaning }.joined(separator: "\n"))

      \(Command.usage)
      """)

  @Option(
    name: .customLong("db"),
    help: """
      The board's SQLite file (default: $XDG_DATA_HOME/reduxkit-board/board.sqlite; with \
      --server, server-HOST-PORT.sqlite beside it).
      """)
  var databasePath: String?

  @Option(
    name: .customLong("log"),
    help: """
      Append logs to this file (default: warnings to standard error in line mode, and to \
      board.log beside the database in full screen, never onto the screen).
      """)
  var logPath: String?

  @Option(name: .customLong("open"), help: "Open a card at start, as a deep link: card/42.")
  var deepLink: String?

  @Flag(name: .customLong("lines"), help: "Line mode even on a terminal.")
  var forcesLineMode = false

  @Option(
    name: .customLong("server"),
    help: """
      Use the board a board-server keeps (http://HOST:PORT), shared with its other clients, \
      kept in a file of this machine too: changes are saved there at once and sent when the \
      server can be reached (offline, the board starts from the file); others' changes appear \
      as they happen. A server that wants a token reads it from BOARD_SERVER_TOKEN.
      """)
  var server: String?

  @Option(
    name: .customLong("devtools"),
    help: ArgumentHelp(
      """
      Serve the ReduxKit DevTools page: every action, the board after each, time travel. \
      ADDRESS is optional: HOST:PORT, PORT or HOST (default: loopback, a free port); the \
      page's address is printed (in full screen, in the header).
      """, valueName: "address"))
  var devTools: String?

  @Option(
    name: .customLong("devtools-token"),
    help: """
      The token the DevTools page requires (default: a random one; the printed address \
      holds it).
      """)
  var devToolsToken: String?

  @Option(
    name: .customLong("record"),
    help: "Record the session to this file, as JSON lines (reduxkit-inspect reads it).")
  var recordPath: String?

  /// `--devtools` may come without its address: filled in before ArgumentParser reads it.
  static func main() async {
    var arguments = Array(CommandLine.arguments.dropFirst())
    // NB: `swift run board -- --help` passes the `--` on; board takes no positional argument,
    // so it can only mean "what follows is for board".
    if arguments.first == "--" { arguments.removeFirst() }
    await main(DevToolsAddress.fillingIn(arguments))
  }

  func validate() throws {
    if let server, URL(string: server)?.scheme?.hasPrefix("http") != true {
      throw ValidationError("--server takes an http URL, as http://127.0.0.1:8080: \(server)")
    }
    if server != nil, devTools != nil || recordPath != nil {
      throw ValidationError(
        "--devtools and --record record a board kept on this machine, not with --server")
    }
    if devToolsToken != nil, devTools == nil {
      throw ValidationError("--devtools-token goes with --devtools")
    }
    _ = try makeDevTools()
  }

  func run() async throws {
    let status = await BoardLauncher(
      databasePath: databasePath
        ?? serverURL.map { BoardReplica.defaultPath(server: $0) } ?? BoardDatabase.defaultPath(),
      logPath: logPath, deepLink: deepLink, forcesLineMode: forcesLineMode, server: serverURL,
      serverToken: ProcessInfo.processInfo.environment["BOARD_SERVER_TOKEN"],
      devTools: try makeDevTools()
    ).launch()
    if status != 0 { throw ExitCode(status) }
  }

  private var serverURL: URL? { server.flatMap(URL.init(string:)) }

  private func makeDevTools() throws -> BoardDevTools? {
    guard devTools != nil || recordPath != nil else { return nil }
    let serve = try devTools.map { try DevToolsAddress($0).serve(token: devToolsToken) }
    return BoardDevTools(sessionPath: recordPath, serve: serve)
  }
}
