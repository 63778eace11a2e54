import Synchronization

/// A continuation that cancellation resumes, whichever comes first: the wait or the
/// cancellation.
final class CancellationWaiter: Sendable {
  private enum State {
    case idle
    case waiting(CheckedContinuation<Void, any Error>)
    case cancelled
  }

  private let state = Mutex(State.idle)

  func wait(_ continuation: CheckedContinuation<Void, any Error>) {
    let cancelled = state.withLock { state in
      guard case .idle = state else { return true }
      state = .waiting(continuation)
      return false
    }
    if cancelled { continuation.resume(throwing: CancellationError()) }
  }

  func cancel() {
    let waiting = state.withLock { state -> CheckedContinuation<Void, any Error>? in
      defer { state = .cancelled }
      if case .waiting(let continuation) = state { return continuation }
      return nil
    }
    waiting?.resume(throwing: CancellationError())
  }
}
