import Synchronization

/// A latch effects wait on until the test opens it: the test decides when an effect ends.
final class Gate: Sendable {
  private struct State {
    var isOpen = false
    var waiters: [CheckedContinuation<Void, Never>] = []
    /// Tests waiting for this many effects to wait.
    var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
  }

  private let state = Mutex(State())

  /// The number of effects waiting.
  var waiterCount: Int { state.withLock { $0.waiters.count } }

  func wait() async {
    await withCheckedContinuation { continuation in
      let (isOpen, reached) = state.withLock {
        state -> (Bool, [CheckedContinuation<Void, Never>]) in
        guard !state.isOpen else { return (true, []) }
        state.waiters.append(continuation)
        let count = state.waiters.count
        let reached = state.watchers.filter { $0.count <= count }.map(\.continuation)
        state.watchers.removeAll { $0.count <= count }
        return (false, reached)
      }
      if isOpen { continuation.resume() }
      for watcher in reached { watcher.resume() }
    }
  }

  func open() {
    let waiters = state.withLock { state in
      state.isOpen = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Suspends until `count` effects wait.
  func waitForWaiters(_ count: Int) async {
    await withCheckedContinuation { continuation in
      let isReached = state.withLock { state in
        guard state.waiters.count < count else { return true }
        state.watchers.append((count, continuation))
        return false
      }
      if isReached { continuation.resume() }
    }
  }
}
