import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The `PersistenceCrashWriter` executable (a test fixture), started on a database, read line by line.
final class WriterProcess {
  private let process = Process()
  private let output = Pipe()
  private let errors = Pipe()
  private var buffer: [UInt8] = []
  private var reachedEnd = false

  init(database: URL, arguments: [String]) throws {
    process.executableURL = try Self.binary()
    process.arguments = [database.path] + arguments
    process.standardOutput = output
    process.standardError = errors
    try process.run()
  }

  /// The next line the writer printed, waiting for it; `nil` once it exited and all is read.
  func nextLine() -> String? {
    while true {
      if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
        let line = String(decoding: buffer[..<newline], as: UTF8.self)
        buffer.removeSubrange(...newline)
        return line
      }
      guard !reachedEnd else { return nil }
      var chunk = [UInt8](repeating: 0, count: 4_096)
      let count = chunk.withUnsafeMutableBytes {
        read(output.fileHandleForReading.fileDescriptor, $0.baseAddress, $0.count)
      }
      if count <= 0 {
        reachedEnd = true
      } else {
        buffer += chunk[..<count]
      }
    }
  }

  /// Every line left, once the writer has exited.
  func remainingLines() -> [String] {
    var lines: [String] = []
    while let line = nextLine() { lines.append(line) }
    return lines
  }

  /// SIGKILLs the writer and waits for it to die.
  ///
  /// - Returns: Whether the kill ended it (rather than an earlier exit of its own).
  func kill() -> Bool {
    #if canImport(Glibc)
      Glibc.kill(process.processIdentifier, SIGKILL)
    #elseif canImport(Musl)
      Musl.kill(process.processIdentifier, SIGKILL)
    #elseif canImport(Darwin)
      Darwin.kill(process.processIdentifier, SIGKILL)
    #endif
    process.waitUntilExit()
    return process.terminationReason == .uncaughtSignal
  }

  func waitUntilExit() -> Int32 {
    process.waitUntilExit()
    return process.terminationStatus
  }

  var standardError: String {
    String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  }

  /// The executable sits next to the test binary (on Apple platforms, beside the .xctest bundle).
  private static func binary() throws -> URL {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let candidates = [
      directory.appendingPathComponent("PersistenceCrashWriter"),
      directory.deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("PersistenceCrashWriter"),
    ]
    return try #require(
      candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) },
      "no PersistenceCrashWriter near \(directory.path): build the tests with `swift build --build-tests`"
    )
  }
}
