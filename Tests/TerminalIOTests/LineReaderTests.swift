import Testing

@testable import TerminalIO

@Suite struct LineReaderTests {
  @Test func readsLinesUntilTheEndOfTheInput() async throws {
    let pipe = try TestPipe()
    pipe.write("one\ntwo\n")
    pipe.closeWriteEnd()
    let lines = await collect(LineReader(fileDescriptor: pipe.readEnd).lines)
    #expect(lines == ["one", "two"])
  }

  @Test func deliversALastLineWithoutLineEnd() async throws {
    let pipe = try TestPipe()
    pipe.write("one\ntwo")
    pipe.closeWriteEnd()
    let lines = await collect(LineReader(fileDescriptor: pipe.readEnd).lines)
    #expect(lines == ["one", "two"])
  }

  @Test func readsCRLFAsLF() async throws {
    let pipe = try TestPipe()
    pipe.write("one\r\ntwo\r\n\r\n")
    pipe.closeWriteEnd()
    let lines = await collect(LineReader(fileDescriptor: pipe.readEnd).lines)
    #expect(lines == ["one", "two", ""])
  }

  @Test func replacesInvalidUTF8() async throws {
    let pipe = try TestPipe()
    pipe.write([0x61, 0xFF, 0x62, 0x0A, 0xE2, 0x82])
    pipe.closeWriteEnd()
    let lines = await collect(LineReader(fileDescriptor: pipe.readEnd).lines)
    #expect(lines == ["a\u{FFFD}b", "\u{FFFD}"])
  }

  @Test func emptyInputEndsAtOnce() async throws {
    let pipe = try TestPipe()
    pipe.closeWriteEnd()
    let lines = await collect(LineReader(fileDescriptor: pipe.readEnd).lines)
    #expect(lines.isEmpty)
  }

  @Test func readsMoreThanThePipeHoldsInOrder() async throws {
    let pipe = try TestPipe()
    let expected = (0..<20_000).map { "line \($0) ünïcödé" }
    pipe.writeInBackgroundThenClose(Array(expected.joined(separator: "\n").utf8))
    let lines = await collect(LineReader(fileDescriptor: pipe.readEnd).lines)
    #expect(lines == expected)
  }

  @Test func deliversEachLineAsItIsWritten() async throws {
    let pipe = try TestPipe()
    var lines = LineReader(fileDescriptor: pipe.readEnd).lines.makeAsyncIterator()
    pipe.write("first\n")
    #expect(await lines.next() == "first")
    pipe.write("sec")
    pipe.write("ond\nthi")
    #expect(await lines.next() == "second")
    pipe.closeWriteEnd()
    #expect(await lines.next() == "thi")
    #expect(await lines.next() == nil)
  }

  @MainActor
  @Test func mainActorKeepsRunningWhileWaitingForALine() async throws {
    let pipe = try TestPipe()
    let reader = LineReader(fileDescriptor: pipe.readEnd)
    // NB: the main actor runs this task while the loop below waits for input; it writes the
    // line only then, so the loop can only finish if waiting never blocked the main actor.
    let writer = Task { @MainActor in
      pipe.write("from the main actor\n")
      pipe.closeWriteEnd()
    }
    var lines: [String] = []
    for await line in reader.lines { lines.append(line) }
    await writer.value
    #expect(lines == ["from the main actor"])
  }

  @Test func leavingTheLoopLeavesTheRestOfTheInputToTheNextReader() async throws {
    let pipe = try TestPipe()
    let reader = LineReader(fileDescriptor: pipe.readEnd)
    pipe.write("first\n")
    for await line in reader.lines {
      #expect(line == "first")
      break
    }
    // NB: the first loop's thread was woken when its iterator went away; it stops without
    // reading what comes next.
    pipe.write("second\nthird\n")
    pipe.closeWriteEnd()
    #expect(await collect(reader.lines) == ["second", "third"])
  }

  @Test func cancellingTheLoopStopsTheReader() async throws {
    let pipe = try TestPipe()
    let reader = LineReader(fileDescriptor: pipe.readEnd)
    let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
    let loop = Task {
      var iterator = reader.lines.makeAsyncIterator()
      startedContinuation.yield()
      return await iterator.next()
    }
    for await _ in started { break }
    loop.cancel()
    #expect(await loop.value == nil)
    pipe.write("after\n")
    pipe.closeWriteEnd()
    #expect(await collect(reader.lines) == ["after"])
  }

  @Test func readsKeysAndSettlesALoneEscapeAtTheEnd() async throws {
    let pipe = try TestPipe()
    pipe.write("\u{1B}[Ax\u{1B}OB\u{03}é\u{1B}")
    pipe.closeWriteEnd()
    let keys = await collect(LineReader(fileDescriptor: pipe.readEnd).keys)
    #expect(keys == [.up, .character("x"), .down, .control("c"), .character("é"), .escape])
  }

  @Test func settlesALoneEscapeAfterTheTimeout() async throws {
    let pipe = try TestPipe()
    let reader = LineReader(fileDescriptor: pipe.readEnd, escapeTimeout: .milliseconds(5))
    var keys = reader.keys.makeAsyncIterator()
    pipe.write([0x1B])
    // NB: the input stays open; only the timeout can settle the ESC.
    #expect(await keys.next() == .escape)
    pipe.write("\u{1B}[D")
    #expect(await keys.next() == .left)
    pipe.closeWriteEnd()
    #expect(await keys.next() == nil)
  }

  @Test func waitsForTheRestOfASplitSequence() async throws {
    let pipe = try TestPipe()
    let reader = LineReader(fileDescriptor: pipe.readEnd, escapeTimeout: .seconds(3_600))
    var keys = reader.keys.makeAsyncIterator()
    pipe.write([0x1B, UInt8(ascii: "[")])
    pipe.write([UInt8(ascii: "5")])
    pipe.write([UInt8(ascii: "~"), UInt8(ascii: "q")])
    #expect(await keys.next() == .pageUp)
    #expect(await keys.next() == .character("q"))
    pipe.closeWriteEnd()
    #expect(await keys.next() == nil)
  }
}
