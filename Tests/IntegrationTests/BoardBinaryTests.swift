import Foundation
import ReduxKit
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs the built `board` executable in line mode through pipes, as a script or CI would.
@Suite(.timeLimit(.minutes(2))) struct BoardBinaryTests {
  let databasePath: String

  init() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("board-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    databasePath = folder.appendingPathComponent("board.sqlite").path
  }

  /// The `board` binary beside the test binary.
  static func binary() throws -> URL {
    let testBinary = URL(fileURLWithPath: CommandLine.arguments[0])
    let directory = testBinary.deletingLastPathComponent()
    let candidates = [
      directory.appendingPathComponent("board"),
      directory.deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("board"),
    ]
    return try #require(
      candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) },
      "no board binary near \(testBinary.path)")
  }

  /// Runs `board` with `arguments`, feeding it `input`; returns its status and output.
  func run(_ arguments: [String], input: String, in folder: URL? = nil) throws -> (
    status: Int32, out: String, err: String
  ) {
    let process = Process()
    process.executableURL = try Self.binary()
    process.arguments = arguments
    process.currentDirectoryURL = folder
    let (stdin, stdout, stderr) = (Pipe(), Pipe(), Pipe())
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let out = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let err = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, out, err)
  }

  @Test func aFileNamedWithoutAFolderIsOneOfTheCurrentFolder() throws {
    let folder = URL(fileURLWithPath: (databasePath as NSString).deletingLastPathComponent)
    let result = try run(["--db", "here.sqlite"], input: "add Todo Here\n", in: folder)
    #expect(result.status == 0, "\(result.err)")
    #expect(result.out.contains(#"added #1 "Here" to Todo (saved)"#))
    #expect(
      FileManager.default.fileExists(atPath: folder.appendingPathComponent("here.sqlite").path))
  }

  @Test func aScriptedSessionIsSavedAndShownAgainAtTheNextStart() throws {
    let first = try run(
      ["--db", databasePath],
      input: """
        add Todo "Write docs"
        add Todo Review the PR
        add Doing Ship it
        move 1 Done
        search docs
        undo
        quit

        """)
    #expect(first.status == 0, "\(first.err)")
    #expect(first.out.contains(#"added #1 "Write docs" to Todo (saved)"#))
    #expect(first.out.contains("moved #1 to Done (saved)"))
    #expect(first.out.contains("1 card(s) match 'docs':"))
    let second = try run(["--db", databasePath], input: "list\n")
    #expect(second.status == 0)
    #expect(second.out.contains("#2 Review the PR"))
    #expect(second.out.contains("#3 Ship it"))
  }

  @Test func badInputIsNamedOnStandardErrorAndMakesTheExitStatusNonZero() throws {
    let result = try run(["--db", databasePath], input: "frobnicate\nmove 42 Done\nlist\n")
    #expect(result.status == 1)
    // NB: errors on standard error, replies on standard output: a script tells them apart.
    #expect(result.err.contains("error: unknown command 'frobnicate' (type 'help' for the list)"))
    #expect(result.err.contains("error: there is no card #42"))
    #expect(!result.out.contains("error:"))
    #expect(result.out.contains("Todo (0)"))
    // NB: neither end is a terminal (a script): no note about line mode.
    #expect(!result.err.contains("line mode, because"))
  }

  @Test func aFileThatIsNotADatabaseIsRefusedAndLeftUntouched() throws {
    let text = Data("these are my notes, not a database\n".utf8)
    try text.write(to: URL(fileURLWithPath: databasePath))
    let result = try run(["--db", databasePath], input: "list\n")
    #expect(result.status == 2)
    #expect(result.err.contains("board: cannot open \(databasePath)"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: databasePath)) == text)
  }

  @Test func whatWasReportedSavedSurvivesKillDashNine() throws {
    let process = Process()
    process.executableURL = try Self.binary()
    process.arguments = ["--db", databasePath]
    let (stdin, stdout) = (Pipe(), Pipe())
    process.standardInput = stdin
    process.standardOutput = stdout
    try process.run()
    stdin.fileHandleForWriting.write(Data("add Todo Survivor\n".utf8))
    var output = ""
    while !output.contains("(saved)") {
      let chunk = stdout.fileHandleForReading.availableData
      guard !chunk.isEmpty else { break }
      output += String(decoding: chunk, as: UTF8.self)
    }
    #expect(output.contains(#"added #1 "Survivor" to Todo (saved)"#))
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    #expect(process.terminationReason == .uncaughtSignal)
    let after = try run(["--db", databasePath], input: "list\n")
    #expect(after.out.contains("#1 Survivor"))
  }

  @Test(arguments: [["--help"], ["--", "--help"]])
  func helpListsBothModes(_ arguments: [String]) throws {
    // NB: `swift run board -- --help` passes the `--` on.
    let result = try run(arguments, input: "")
    #expect(result.status == 0, "\(result.err)")
    #expect(result.out.contains("Full screen when standard input and output are a terminal"))
    #expect(result.out.contains("Line mode otherwise"))
    #expect(result.out.contains("move CARD COLUMN"))
    #expect(result.out.contains("PgDn / PgUp"))
  }

  @Test func devToolsRecordTheSessionAndServeThePageOnLoopback() throws {
    let sessionPath = databasePath + ".jsonl"
    // NB: `--devtools` without its address, followed by another option. The sanitizer runs
    // build without the root package's DevToolsServer trait: the page is not there.
    #if DevToolsServer
      let devTools = ["--devtools"]
    #else
      let devTools: [String] = []
    #endif
    let result = try run(
      ["--db", databasePath] + devTools + ["--lines", "--record", sessionPath],
      input: "add Todo Recorded\nmove 1 Done\n")
    #expect(result.status == 0)
    #expect(result.err.contains("DevTools: http://127.0.0.1:") == !devTools.isEmpty)
    let session = try DevToolsSession(contentsOf: URL(fileURLWithPath: sessionPath))
    #expect(session.header.app == "board")
    #expect(session.records.map(\.name) == ["@start", "addCard", "moveCard"])
    #expect(session.records.last?.outcome == .reduced)
  }

  #if !DevToolsServer
    @Test func withoutThePageDevToolsSayHowToBuildIt() throws {
      let result = try run(["--db", databasePath, "--lines", "--devtools"], input: "list\n")
      #expect(result.status != 0)
      #expect(result.err.contains("swift run --traits DevToolsServer board -- --devtools"))
    }
  #endif

  #if DevToolsServer
    @Test func thePageRequiresATokenMadeUpOrGiven() throws {
      let madeUp = try run(
        ["--db", databasePath, "--lines", "--devtools", "0.0.0.0:0"], input: "list\n")
      #expect(madeUp.status == 0, "\(madeUp.err)")
      let token = try #require(madeUp.err.firstRange(of: "?token=")).upperBound
      #expect(madeUp.err[token...].prefix(36).count == 36, "\(madeUp.err)")
      let given = try run(
        ["--db", databasePath, "--lines", "--devtools", "0.0.0.0:0", "--devtools-token", "s3cret"],
        input: "list\n")
      #expect(given.err.contains("?token=s3cret"), "\(given.err)")
      let loopback = try run(
        ["--db", databasePath, "--lines", "--devtools", "127.0.0.1:0"], input: "list\n")
      #expect(loopback.err.contains("DevTools: http://127.0.0.1:"))
      let random = try #require(loopback.err.firstRange(of: "?token=")).upperBound
      let made = loopback.err[random...].prefix(32)
      #expect(made.count == 32 && made.allSatisfy(\.isHexDigit), "\(loopback.err)")
    }
  #endif

  @Test func badDevToolsOptionsAreRefusedInWords() throws {
    let cases: [([String], String)] = [
      (["--devtools", "127.0.0.1:70000"], "--devtools takes HOST:PORT, PORT or HOST"),
      (["--server", "http://127.0.0.1:1", "--record", "x.jsonl"], "not with --server"),
      (["--devtools-token", "secret"], "--devtools-token goes with --devtools"),
    ]
    for (arguments, message) in cases {
      let result = try run(["--db", databasePath, "--lines"] + arguments, input: "")
      #expect(result.status == 64, "\(arguments)")
      #expect(result.err.contains(message), "\(arguments): \(result.err)")
    }
    let unwritable = try run(
      ["--db", databasePath, "--lines", "--record", "/nonexistent/folder/s.jsonl"], input: "")
    #expect(unwritable.status == 2)
    #expect(unwritable.err.contains("cannot write the session file /nonexistent/folder/s.jsonl"))
  }
}
