import Testing

@testable import TerminalIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct TerminalTests {
  @Test func aPipeIsNotATerminal() throws {
    let pipe = try TestPipe()
    #expect(!Terminal.isTerminal(pipe.readEnd))
  }

  @Test func writesEveryByte() async throws {
    let pipe = try TestPipe()
    let text = String(repeating: "héllo 日本 ", count: 100)
    writeAll(text, to: try #require(pipe.writeDescriptor))
    pipe.closeWriteEnd()
    let lines = await collect(LineReader(fileDescriptor: pipe.readEnd).lines)
    #expect(lines == [text])
  }

  @Test func restoreWithNothingToRestoreDoesNothing() {
    Terminal.restore()
    Terminal.restore()
  }

  @Test func controlSequencesSelectStyles() {
    #expect(ControlSequence.selectStyle([]) == "\u{1B}[0m")
    #expect(ControlSequence.selectStyle([.bold, .underline, .italic]) == "\u{1B}[0;1;3;4m")
    #expect(ControlSequence.moveCursor(row: 0, column: 0) == "\u{1B}[1;1H")
  }
}
