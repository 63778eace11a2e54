import Observation
import Synchronization

/// Suspends until `condition` holds, checking it again whenever Observation reports a change to
/// what it read: no polling, no `Task.yield()` loop, no sleep.
///
/// ```swift
/// viewModel.send(.startTimer)
/// await clock.advance(by: .seconds(1))
/// await waitUntil { viewModel.ticks == 1 }
/// ```
///
/// `condition` must read observable state (an `@Observable` object's properties); one that
/// reads nothing observable and is false waits forever (a test's time limit ends it).
///
/// - Parameter condition: What the test waits for.
@MainActor
public func waitUntil(_ condition: @escaping @MainActor () -> Bool) async {
  var holds = condition()
  while !holds {
    await withCheckedContinuation { continuation in
      // NB: resumed once, by whichever comes first: the condition holding when tracking
      // starts, or the change it then reports (possibly from another thread).
      let pending = Mutex<CheckedContinuation<Void, Never>?>(continuation)
      let holdsNow = withObservationTracking {
        condition()
      } onChange: {
        pending.withLock { $0.take() }?.resume()
      }
      if holdsNow { pending.withLock { $0.take() }?.resume() }
    }
    holds = condition()
  }
}
