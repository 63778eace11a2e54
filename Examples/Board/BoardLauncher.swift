import Foundation
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
struct BoardLauncher {
  let databasePath: String
  let logPath: String?
  let deepLink: String?
  /// `--lines`: every run is line mode until the full-screen UI lands (issue 17).
  let forcesLineMode: Bool

  /// - Returns: The exit status: 0, 1 when a line-mode command failed, 2 when the board could
  ///   not be opened.
  func launch() async -> Int32 {
    let logger = makeLogger()
    let database: BoardDatabase
    let state: BoardState
    do {
      try FileManager.default.createDirectory(
        atPath: (databasePath as NSString).deletingLastPathComponent,
        withIntermediateDirectories: true)
      database = try BoardDatabase(path: databasePath, logger: logger)
      state = try await database.load()
    } catch {
      printError("board: cannot open \(databasePath): \(error)")
      return 2
    }
    let session = BoardSession(state: state, persistence: database.persistence, logger: logger)
    await database.persistence.shutdownOnTermination { signal in
      Terminal.restore()
      try? database.database.close()
      exit(128 + signal)
    }
    var status: Int32 = 0
    if let deepLink {
      let reply = session.open(deepLink)
      Terminal.write(reply.text + "\n")
      if reply.isError { status = 1 }
    }
    // NB: the full-screen mode is not built yet (issue 17): a terminal gets line mode, with
    // a prompt.
    let failures = await LineMode.run(
      session, lines: LineReader.standardInput.lines,
      prompt: Terminal.isInputTerminal ? "board> " : nil
    ) { reply in
      // NB: unbuffered: a script reading the replies through a pipe sees "(saved)" when it is.
      Terminal.write(reply + "\n")
    }
    if failures > 0 { status = 1 }
    do {
      try await database.persistence.shutdown()
      try database.database.close()
    } catch {
      printError("board: not everything was saved: \(error)")
      return 2
    }
    return status
  }

  /// `--log PATH`, or warnings to standard error (line mode writes its replies to standard
  /// output).
  private func makeLogger() -> Logger {
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
