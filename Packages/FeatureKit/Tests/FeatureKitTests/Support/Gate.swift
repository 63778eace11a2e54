import Synchronization

/// A latch effects wait on until the test opens it: the test decides when an effect ends.
final class Gate: Sendable {
  private struct State {
    var isOpen = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  private let state = Mutex(State())

  /// The number of effects waiting.
  var waiterCount: Int { state.withLock { $0.waiters.count } }

  func wait() async {
    await withCheckedContinuation { continuation in
      let isOpen = state.withLock { state in
        if !state.isOpen { state.waiters.append(continuation) }
        return state.isOpen
      }
      if isOpen { continuation.resume() }
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
    while waiterCount < count { await Task.yield() }
  }
}
