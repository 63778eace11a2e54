package import Foundation
import Logging
import ReduxKit
import TerminalIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Opens the board, runs it in the mode the terminal allows, and saves everything on the way
/// out (quit, end of input, Ctrl-C, SIGTERM).
@MainActor
package struct BoardLauncher {
  let databasePath: String
  let logPath: String?
  let deepLink: String?
  /// `--lines`: line mode even on a terminal.
  let forcesLineMode: Bool
  /// `--server`: the board a server keeps, instead of the SQLite file.
  let server: URL?
  /// The token that server wants (`BOARD_SERVER_TOKEN`), if it wants one.
  let serverToken: String?
  /// `--record`, `--devtools`: what records the board (a board of this machine only).
  let devTools: BoardDevTools?

  /// The launcher of `board`'s command line: `--db`, `--log`, `--open`, `--lines`, `--server`,
  /// `--record`, `--devtools`.
  package init(
    databasePath: String, logPath: String?, deepLink: String?, forcesLineMode: Bool,
    server: URL? = nil, serverToken: String? = nil, devTools: BoardDevTools? = nil
  ) {
    self.databasePath = databasePath
    self.logPath = logPath
    self.deepLink = deepLink
    self.forcesLineMode = forcesLineMode
    self.server = server
    self.serverToken = serverToken
    self.devTools = devTools
  }

  /// Full screen when both ends are a terminal and line mode was not asked for.
  var isFullScreen: Bool { Terminal.isInteractive && !forcesLineMode }

  /// Why the board is in line mode when a person may have expected the full screen: one end
  /// is a terminal, the other not (`board | tee log`, `board < commands`); `nil` otherwise.
  static func lineModeNote(isInputTerminal: Bool, isOutputTerminal: Bool, forcesLineMode: Bool)
    -> String?
  {
    guard !forcesLineMode, isInputTerminal != isOutputTerminal else { return nil }
    let end = isInputTerminal ? "standard output" : "standard input"
    let note = "board: line mode, because \(end) is not a terminal (the full screen needs both)"
    return isInputTerminal ? note + "; type help for the commands" : note
  }

  private func sayWhyLineMode() {
    if let note = Self.lineModeNote(
      isInputTerminal: Terminal.isInputTerminal, isOutputTerminal: Terminal.isOutputTerminal,
      forcesLineMode: forcesLineMode)
    {
      printError(note)
    }
  }

  /// - Returns: The exit status: 0, 1 when a line-mode command failed, 2 when the board could
  ///   not be opened.
  package func launch() async -> Int32 {
    do {
      // NB: `--db board.sqlite` names a file of the current folder, which exists.
      let folder = (databasePath as NSString).deletingLastPathComponent
      if !folder.isEmpty {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      }
    } catch {
      printError("board: cannot create the folder of \(databasePath): \(error)")
      return 2
    }
    let logger = makeLogger()
    if let server { return await launch(server: server, logger: logger) }
    let database: BoardDatabase
    let state: BoardState
    let drawn: ScreenRenderer?
    do {
      database = try BoardDatabase(path: databasePath, logger: logger)
      drawn = await drawFirstFrame(of: database, logger: logger)
      state = try await database.load()
    } catch {
      Terminal.restore()
      printError("board: cannot open \(databasePath): \(error)")
      return 2
    }
    let recorder: BoardRecorder?
    do {
      recorder = try devTools?.makeRecorder()
    } catch {
      Terminal.restore()
      printError("board: --record: \(error)")
      return 2
    }
    let session = BoardSession(
      state: state, database: database, recorder: recorder, logger: logger)
    // NB: other boards on the same file (another terminal, a script) show here as they change it.
    session.followOtherBoards()
    if let serve = devTools?.serve, let recorder, let travel = session.travel {
      do {
        let url = try await serve(recorder, travel, logger)
        let page = "DevTools: \(url.absoluteString)"
        logger.notice("\(page)")
        // NB: standard output holds the replies a script reads; the full screen shows it in
        // its header.
        if isFullScreen { session.devToolsPage = page } else { printError(page) }
      } catch {
        Terminal.restore()
        printError("board: --devtools: the page cannot be served: \(error)")
        return 2
      }
    }
    await database.persistence.shutdownOnTermination { signal in
      Terminal.restore()
      recorder?.flush()
      do {
        try database.database.close()
      } catch {
        // NB: the shutdown has flushed; a close that fails (a statement still running) leaves
        // the WAL for the next open to checkpoint, but it is not silent.
        logger.error("board: closing the database failed: \(error)")
      }
      exit(128 + signal)
    }
    sayWhyLineMode()
    let status =
      isFullScreen ? await fullScreen(session, drawn: drawn, logger: logger) : await lines(session)
    recorder?.flush()
    do {
      try await database.persistence.shutdown()
      try database.database.close()
    } catch {
      printError("board: not everything was saved: \(error)")
      return 2
    }
    return status
  }

  /// Draws the board's first frame from its first screenful (``BoardDatabase/preview(rows:)``),
  /// before the whole board loads: on a board of 10,000 cards, a person sees it in a fifth of
  /// the time. Only in full screen without `--open` (whose screen comes first).
  ///
  /// - Returns: The renderer that drew it, in full screen; `nil` when nothing was drawn (the
  ///   full screen then starts as before).
  private func drawFirstFrame(of database: BoardDatabase, logger: Logger) async
    -> ScreenRenderer?
  {
    guard isFullScreen, deepLink == nil else { return nil }
    let size = Terminal.size
    let frame: ScreenFrame?
    do {
      frame = try await FullScreenMode.firstFrame(of: database, size: size)
    } catch {
      // NB: the load that follows reads the same rows, and reports what is wrong with them.
      logger.debug("board: no first frame before the load", metadata: ["error": "\(error)"])
      return nil
    }
    guard let frame else { return nil }
    do {
      try Terminal.enterFullScreen()
    } catch {
      // NB: `fullScreen(_:drawn:logger:)` tries again, and says why it cannot.
      return nil
    }
    var renderer = ScreenRenderer(size: size)
    Terminal.write(renderer.render(frame))
    return renderer
  }

  /// The board a server keeps, replicated in the file at `databasePath`: it starts from the
  /// file when the server cannot be reached, and sends what was saved when it can.
  private func launch(server: URL, logger: Logger) async -> Int32 {
    let session: BoardSession
    do {
      let http = HTTPBoardServer(baseURL: server, token: serverToken)
      session = try await BoardSession.connect(
        replicaAt: databasePath, remote: http,
        changes: { tag in try await http.changes(after: tag) }, logger: logger)
    } catch {
      printError("board: cannot load the board from \(server.absoluteString): \(error)")
      return 2
    }
    sayWhyLineMode()
    let status = isFullScreen ? await fullScreen(session, logger: logger) : await lines(session)
    do {
      try await session.shutdown()
    } catch {
      printError("board: \(error)")
      return 2
    }
    return status
  }

  /// Line mode: replies on standard output and errors on standard error (a script tells them
  /// apart), a prompt on a terminal.
  private func lines(_ session: BoardSession) async -> Int32 {
    var status: Int32 = 0
    func say(_ reply: Reply) {
      // NB: unbuffered: a script reading the replies through a pipe sees "(saved)" when it is.
      if reply.isError { printError(reply.text) } else { Terminal.write(reply.text + "\n") }
    }
    if let deepLink {
      let reply = session.open(deepLink)
      say(reply)
      if reply.isError { status = 1 }
    }
    let failures = await LineMode.run(
      session, lines: LineReader.standardInput.lines,
      prompt: Terminal.isInputTerminal ? "board> " : nil, write: say)
    return failures > 0 ? 1 : status
  }

  /// The full screen, on the alternate screen in raw mode, restored on the way out (and on a
  /// crash or a signal). A deep link is checked before the screen is entered.
  ///
  /// - Parameter drawn: The renderer of the first frame, when it was drawn while the board
  ///   loaded.
  private func fullScreen(
    _ session: BoardSession, drawn: ScreenRenderer? = nil, logger: Logger
  ) async -> Int32 {
    let navigation = BoardNavigation(session: session, logger: logger)
    if let deepLink {
      do {
        try navigation.open(try DeepLink(deepLink))
      } catch {
        printError("board: --open \(deepLink): \(error)")
        return 1
      }
    }
    do {
      try Terminal.enterFullScreen()
    } catch {
      printError("board: cannot use the terminal full screen (\(error)); try --lines")
      return 1
    }
    defer { Terminal.restore() }
    await FullScreenMode.run(
      navigation, session: session, events: Terminal.events(), size: Terminal.size, drawn: drawn,
      write: Terminal.write)
    return 0
  }

  /// `--log PATH`; otherwise warnings go to standard error in line mode (its replies go to
  /// standard output), and to `board.log` beside the database in full screen, since anything
  /// written to the terminal would be drawn over.
  private func makeLogger() -> Logger {
    let logPath =
      logPath
      ?? (isFullScreen
        ? ((databasePath as NSString).deletingLastPathComponent as NSString)
          .appendingPathComponent("board.log") : nil)
    if let logPath {
      if !FileManager.default.fileExists(atPath: logPath) {
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
      }
      if let file = FileHandle(forWritingAtPath: logPath) {
        file.seekToEndOfFile()
        return Logger(label: "board") { FileLogHandler(label: $0, file: file) }
      }
      printError("board: cannot write the log file \(logPath); logging to nowhere")
    }
    var logger = Logger(label: "board") { StreamLogHandler.standardError(label: $0) }
    logger.logLevel = .warning
    return logger
  }

  private func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
  }
}
