import Synchronization

/// The outcome of one fetch in flight, which every caller that joined the fetch awaits.
///
/// Callers await this rather than the fetch's task, so that `cancelQueries` can let them go at
/// once with `CancellationError`, even while a query function that ignores cancellation keeps
/// running: the first settlement wins, and the orphaned function's result is dropped.
final class FetchOutcome: Sendable {
  typealias Value = Result<any Sendable, any Error>

  private enum State {
    case pending([CheckedContinuation<Value, Never>])
    case settled(Value)
  }

  private let state = Mutex(State.pending([]))

  /// Suspends until the fetch settles, or returns its outcome at once if it has.
  func value() async -> Value {
    await withCheckedContinuation { continuation in
      let settled: Value? = state.withLock { state in
        switch state {
        case .pending(var waiters):
          waiters.append(continuation)
          state = .pending(waiters)
          return nil
        case .settled(let value):
          return value
        }
      }
      if let settled { continuation.resume(returning: settled) }
    }
  }

  /// Settles the fetch and resumes its callers.
  ///
  /// - Returns: `false` if it was already settled (by a cancellation, say): `value` is dropped.
  @discardableResult
  func settle(_ value: Value) -> Bool {
    let waiters: [CheckedContinuation<Value, Never>]? = state.withLock { state in
      guard case .pending(let waiters) = state else { return nil }
      state = .settled(value)
      return waiters
    }
    guard let waiters else { return false }
    for waiter in waiters { waiter.resume(returning: value) }
    return true
  }
}
