import Testing

@testable import TerminalIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct TerminalEventTests {
  @Test func mergesKeysAndSizesAndEndsWithTheKeys() async {
    let (keys, keyInput) = AsyncStream.makeStream(of: Key.self)
    let (sizes, sizeInput) = AsyncStream.makeStream(of: TerminalSize.self)
    var events = Terminal.merge(keys: keys, resizes: sizes).makeAsyncIterator()
    keyInput.yield(.up)
    #expect(await events.next() == .key(.up))
    sizeInput.yield(TerminalSize(columns: 100, rows: 30))
    #expect(await events.next() == .resize(TerminalSize(columns: 100, rows: 30)))
    keyInput.yield(.character("q"))
    #expect(await events.next() == .key(.character("q")))
    keyInput.finish()
    #expect(await events.next() == nil)
  }

  @Test func leavingTheLoopStopsBothSources() async {
    let (keys, keyInput) = AsyncStream.makeStream(of: Key.self)
    let (sizes, sizeInput) = AsyncStream.makeStream(of: TerminalSize.self)
    let (stopped, stoppedInput) = AsyncStream.makeStream(of: String.self)
    keyInput.onTermination = { _ in stoppedInput.yield("keys") }
    sizeInput.onTermination = { _ in stoppedInput.yield("sizes") }
    keyInput.yield(.escape)
    for await event in Terminal.merge(keys: keys, resizes: sizes) {
      #expect(event == .key(.escape))
      break
    }
    var stoppedSources: Set<String> = []
    for await source in stopped {
      stoppedSources.insert(source)
      if stoppedSources.count == 2 { break }
    }
    #expect(stoppedSources == ["keys", "sizes"])
  }

  @Test func eventsReadKeysFromTheReader() async throws {
    let pipe = try TestPipe()
    let (sizes, _) = AsyncStream.makeStream(of: TerminalSize.self)
    pipe.write("\u{1B}[6~x")
    pipe.closeWriteEnd()
    let events = await collect(
      Terminal.merge(keys: LineReader(fileDescriptor: pipe.readEnd).keys, resizes: sizes))
    #expect(events == [.key(.pageDown), .key(.character("x"))])
  }

  @Test func deliversTheSizeOnSIGWINCH() async {
    let (registered, registeredInput) = AsyncStream.makeStream(of: Void.self)
    var sizes = Terminal.resizes(onRegistered: { registeredInput.yield() }).makeAsyncIterator()
    let next = Task { await sizes.next() }
    for await _ in registered { break }
    // NB: to the process, not `raise` to this thread: Dispatch's worker threads, which run this
    // test, block asynchronous signals.
    kill(getpid(), SIGWINCH)
    #expect(await next.value == TerminalSize.current())
  }
}
