import Synchronization

/// A latch that work waits on until the test opens it: the test decides when an effect ends.
///
/// ```swift
/// let gate = Gate()
/// store.dispatch(.load)              // its middleware task awaits `gate.wait()`
/// await gate.waitForWaiters(1)       // the task is there
/// gate.open()                        // …and now it goes on
/// ```
public final class Gate: Sendable {
  private struct State {
    var isOpen = false
    var nextID = 0
    var waiters: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    /// Tests waiting for this many waiters.
    var watchers = CountWaiters()

    mutating func reachedWatchers() -> [CheckedContinuation<Void, Never>] {
      watchers.satisfied(by: waiters.count)
    }
  }

  private let state = Mutex(State())

  /// Creates a closed gate.
  public init() {}

  /// Whether the gate is open: work that polls (a loop that runs until the test says stop)
  /// reads it instead of waiting.
  public var isOpen: Bool { state.withLock { $0.isOpen } }

  /// The number of tasks waiting.
  public var waiterCount: Int { state.withLock { $0.waiters.count } }

  /// Suspends until the gate is open (at once if it is).
  ///
  /// - Throws: `CancellationError` if the task is cancelled before the gate opens.
  public func wait() async throws {
    try Task.checkCancellation()
    let id = state.withLock { state in
      state.nextID += 1
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        // NB: a cancellation that came before the waiter was registered found nothing to
        // cancel; checked under the lock, it cannot slip between the two.
        let (outcome, reached) = state.withLock {
          state -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
          guard !state.isOpen else { return (.success(()), []) }
          guard !Task.isCancelled else { return (.failure(CancellationError()), []) }
          state.waiters.append((id, continuation))
          return (nil, state.reachedWatchers())
        }
        if let outcome { continuation.resume(with: outcome) }
        for watcher in reached { watcher.resume() }
      }
    } onCancel: {
      let cancelled = state.withLock { state in
        state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0) }
      }
      cancelled?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Opens the gate for good: every waiting task goes on, and later waits return at once.
  public func open() {
    let waiters = state.withLock { state in
      state.isOpen = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.continuation.resume() }
  }

  /// Suspends until at least `count` tasks wait at the gate.
  ///
  /// - Parameter count: How many waiting tasks to wait for.
  public func waitForWaiters(_ count: Int) async {
    await withCheckedContinuation { continuation in
      let isWaiting = state.withLock { state in
        state.watchers.wait(for: count, current: state.waiters.count, continuation)
      }
      if !isWaiting { continuation.resume() }
    }
  }
}
