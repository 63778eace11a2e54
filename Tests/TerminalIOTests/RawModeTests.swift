import Testing

@testable import TerminalIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct RawModeTests {
  @Test func entersAndRestoresRawModeOnATerminal() throws {
    let terminal = try PseudoTerminal()
    let before = terminal.settings()
    #expect(before.c_lflag & tcflag_t(ICANON) != 0)
    let rawMode = try RawMode.enter(fileDescriptor: terminal.device)
    let raw = terminal.settings()
    #expect(raw.c_lflag & tcflag_t(ICANON | ECHO | ISIG | IEXTEN) == 0)
    #expect(raw.c_iflag & tcflag_t(ICRNL | IXON) == 0)
    #expect(raw.c_oflag & tcflag_t(OPOST) == before.c_oflag & tcflag_t(OPOST))
    rawMode.restore()
    rawMode.restore()
    let after = terminal.settings()
    #expect(after.c_lflag == before.c_lflag)
    #expect(after.c_iflag == before.c_iflag)
  }

  @Test func keepsSignalsWhenAsked() throws {
    let terminal = try PseudoTerminal()
    let rawMode = try RawMode.enter(fileDescriptor: terminal.device, generatesSignals: true)
    defer { rawMode.restore() }
    #expect(terminal.settings().c_lflag & tcflag_t(ISIG) != 0)
    #expect(terminal.settings().c_lflag & tcflag_t(ICANON) == 0)
  }

  @Test func refusesAPipe() throws {
    let pipe = try TestPipe()
    #expect(throws: TerminalError.notATerminal(fileDescriptor: pipe.readEnd)) {
      try RawMode.enter(fileDescriptor: pipe.readEnd)
    }
  }

  @Test func keysArriveAsTypedInRawMode() async throws {
    let terminal = try PseudoTerminal()
    let rawMode = try RawMode.enter(fileDescriptor: terminal.device)
    defer { rawMode.restore() }
    var keys = LineReader(fileDescriptor: terminal.device).keys.makeAsyncIterator()
    terminal.type("q")
    // NB: no Enter: raw mode delivers the key at once.
    #expect(await keys.next() == .character("q"))
    terminal.type("\u{1B}[A\u{03}\r")
    #expect(await keys.next() == .up)
    #expect(await keys.next() == .control("c"))
    #expect(await keys.next() == .enter)
  }

  @Test func linesArriveFromATerminalInCanonicalMode() async throws {
    let terminal = try PseudoTerminal()
    var lines = LineReader(fileDescriptor: terminal.device).lines.makeAsyncIterator()
    terminal.type("hello\n")
    #expect(await lines.next() == "hello")
    // NB: Ctrl-D on an empty line is the end of the input in canonical mode.
    terminal.type("\u{04}")
    #expect(await lines.next() == nil)
  }

  @Test func readsTheWindowSizeOfATerminal() throws {
    let terminal = try PseudoTerminal()
    var size = winsize(ws_row: 33, ws_col: 111, ws_xpixel: 0, ws_ypixel: 0)
    try #require(ioctl(terminal.controller, UInt(TIOCSWINSZ), &size) == 0)
    #expect(
      TerminalSize.current(fileDescriptor: terminal.device) == TerminalSize(columns: 111, rows: 33))
    #expect(Terminal.isTerminal(terminal.device))
  }
}
