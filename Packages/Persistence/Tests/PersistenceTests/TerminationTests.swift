import EntityTracking
import Logging
import Persistence
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Ctrl-C or a service manager's SIGTERM must not lose what waits for the debounce.
/// SIGUSR1 stands in for them: the test process must not end.
@MainActor
@Suite(.timeLimit(.minutes(1)), .serialized) struct TerminationTests {
  @Test func aTerminationSignalShutsDownFlushingWhatIsPendingThenFinishes() async throws {
    var harness = Harness()
    harness.reduce { $0.items.upsert(Item(id: 1, name: "typed just before Ctrl-C")) }
    #expect(harness.recorder.calls.isEmpty)  // waiting for the debounce, on a clock that stays
    let (finished, finish) = AsyncStream<Int32>.makeStream()
    let handler = await harness.persistence.shutdownOnTermination(signals: [SIGUSR1]) { signal in
      finish.yield(signal)
    }
    defer { handler.cancel() }

    kill(getpid(), SIGUSR1)
    var signals = finished.makeAsyncIterator()
    #expect(await signals.next() == SIGUSR1)
    #expect(
      harness.recorder.calls == [
        .init(writer: "items", writes: ["1=typed just before Ctrl-C"], deletions: [])
      ])
    #expect(harness.persistence.status.isShutdown)
  }

  @Test func aFailedShutdownIsLoggedAndStillFinishes() async throws {
    var harness = Harness()
    harness.recorder.failNext(1)
    harness.reduce { $0.items.upsert(Item(id: 1, name: "a")) }
    let (finished, finish) = AsyncStream<Int32>.makeStream()
    let handler = await harness.persistence.shutdownOnTermination(signals: [SIGUSR1]) { signal in
      finish.yield(signal)
    }
    defer { handler.cancel() }

    kill(getpid(), SIGUSR1)
    var signals = finished.makeAsyncIterator()
    #expect(await signals.next() == SIGUSR1)
    #expect(
      harness.logs.messages(at: .error).contains {
        $0.hasPrefix("shutdown on signal \(SIGUSR1) failed, 1 changes not persisted")
      })
  }
}
