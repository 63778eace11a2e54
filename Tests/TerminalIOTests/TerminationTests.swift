import Testing

@testable import TerminalIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct TerminationTests {
  @Test func terminationSignalRestoresAndThenEndsTheProcessWithThatSignal() async {
    await #expect(processExitsWith: .signal(SIGTERM)) {
      let (registered, registeredInput) = AsyncStream.makeStream(of: Void.self)
      Terminal.restoreOnTermination(signals: [SIGTERM]) { registeredInput.yield() }
      for await _ in registered { break }
      // NB: SIGTERM is ignored from here on, but for the source: only its handler, restoring
      // the terminal and raising the signal again by default, can end the process with it.
      kill(getpid(), SIGTERM)
      while true { pause() }
    }
  }
}
