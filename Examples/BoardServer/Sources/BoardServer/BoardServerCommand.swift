import ArgumentParser
import BoardServerCore
import Foundation
import Hummingbird
import Logging

/// `board-server`: the board's HTTP API, on PostgreSQL when `DATABASE_URL` is set (several
/// instances share it), on a SQLite file otherwise.
@main
struct BoardServerCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "board-server",
    abstract: "Serves the board's columns and cards as an HTTP JSON API.")

  @Option(help: "The address to listen on.")
  var host = "127.0.0.1"

  @Option(help: "The port to listen on (0: any free port, announced on standard output).")
  var port = 8080

  @Option(help: "This instance's name among those sharing DATABASE_URL.")
  var instance = ProcessInfo.processInfo.hostName + "-\(ProcessInfo.processInfo.processIdentifier)"

  @Option(help: "The SQLite file, when DATABASE_URL is not set.")
  var sqlite = "board-server.sqlite"

  @Option(
    help: """
      The token every client sends (Authorization: Bearer TOKEN); BOARD_SERVER_TOKEN in the \
      environment keeps it out of the process list. Required beyond loopback.
      """)
  var token: String?

  /// The token given on the command line or in the environment.
  private var clientToken: String? {
    token ?? ProcessInfo.processInfo.environment["BOARD_SERVER_TOKEN"]
  }

  func validate() throws {
    if let clientToken, clientToken.count < 16 {
      throw ValidationError("a token has at least 16 characters")
    }
    // NB: without a token, anyone who reaches the port reads, changes and deletes every card.
    let loopback = ["127.0.0.1", "localhost", "::1"].contains(host) || host.hasPrefix("127.")
    if !loopback, clientToken == nil {
      throw ValidationError(
        """
        --host \(host) lets other machines in: give the token clients must send \
        (--token or BOARD_SERVER_TOKEN)
        """)
    }
  }

  func run() async throws {
    let logger = Logger(label: "ReduxKit.BoardServer")
    let database: BoardDatabase =
      if let url = ProcessInfo.processInfo.environment["DATABASE_URL"] {
        .postgres(url: url, instance: instance)
      } else {
        .sqlite(path: sqlite)
      }
    let service = try await BoardService.open(database, logger: logger)
    let app = Application(
      router: makeBoardRouter(service, token: clientToken),
      configuration: .init(address: .hostname(host, port: port), serverName: "board-server"),
      onServerRunning: { [host] channel in
        // NB: the port it got, on standard output: what a script or a test that asked for
        // port 0 waits for before it sends requests.
        let bound = channel.localAddress?.port ?? 0
        FileHandle.standardOutput.write(Data("board-server: listening on \(host):\(bound)\n".utf8))
      },
      logger: logger)
    do {
      try await app.runService()
    } catch {
      try await service.shutdown()
      throw error
    }
    try await service.shutdown()
  }
}
