import EntityTracking
import InMemoryLogging
import Persistence
import ReduxCoreTesting

/// A middleware over ``AppState`` with two recorded writers (tags first, as leaf entities),
/// driven by a test clock.
@MainActor
struct Harness {
  let clock = ManualClock()
  let recorder = PersistRecorder()
  let logs = InMemoryLogHandler()
  let persistence: PersistenceMiddleware<AppState>
  var state = AppState()

  init(loopThreshold: Int = 100) {
    persistence = PersistenceMiddleware(
      writers: [
        StateWriter(keyPath: \.tags, persist: recorder.persist("tags") { $0.id }),
        StateWriter(keyPath: \.items, persist: recorder.persist("items") { "\($0.id)=\($0.name)" }),
      ],
      loopThreshold: loopThreshold, clock: clock, logger: logs.logger)
  }

  /// Runs one "reduce": the change, then the middleware's drain.
  mutating func reduce(_ change: (inout AppState) -> Void) {
    change(&state)
    persistence.afterReduce(state: &state)
  }

  /// Advances the clock by `duration` and, when that fires a flush, waits until its `persist`
  /// call number `call` was made and the flush is over.
  func advance(by duration: Duration, thenAwaitCall call: Int? = nil) async {
    await clock.advance(by: duration)
    if let call {
      await recorder.waitForCalls(call)
      await persistence.waitUntilIdle()
    }
  }

  /// The error `flush()` threw, or `nil` when it succeeded.
  func flushError() async -> PersistenceMiddlewareError? {
    do {
      try await persistence.flush()
      return nil
    } catch {
      return error
    }
  }
}
