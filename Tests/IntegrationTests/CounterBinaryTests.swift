import Foundation
import Testing

/// Runs the built `counter` executable end to end, as `swift run counter` would.
@Suite struct CounterBinaryTests {
  @Test func counterBinaryPrintsTheSession() throws {
    let testBinary = URL(fileURLWithPath: CommandLine.arguments[0])
    // The test binary sits in the build directory (on Apple platforms inside an .xctest bundle).
    let directory = testBinary.deletingLastPathComponent()
    let candidates = [
      directory.appendingPathComponent("counter"),
      directory.deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("counter"),
    ]
    let binary = try #require(
      candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) },
      "no counter binary near \(testBinary.path)")

    let process = Process()
    process.executableURL = binary
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()

    #expect(process.terminationStatus == 0)
    #expect(output.contains("count = 13"))
    #expect(output.contains("count = 0, errors = 1"))
  }
}
