/// Wakes the requests waiting for the board to change (`GET /changes`, a long poll).
@MainActor
final class ChangeSignal {
  private var waiters: [Int: AsyncStream<Void>.Continuation] = [:]
  private var nextWaiter = 0

  /// Wakes every waiter.
  func fire() {
    for waiter in waiters.values { waiter.yield() }
  }

  /// Returns at the next ``fire()``, or after `timeout`, or when the task is cancelled.
  func wait(upTo timeout: Duration) async {
    let (stream, continuation) = AsyncStream.makeStream(
      of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let id = nextWaiter
    nextWaiter += 1
    waiters[id] = continuation
    defer { waiters[id] = nil }
    await withTaskGroup { group in
      group.addTask {
        for await _ in stream { return }
      }
      group.addTask {
        // NB: the long poll's bound on the real clock, not a wait for a result: a change ends
        // it at once.
        try? await Task.sleep(for: timeout)
      }
      await group.next()
      group.cancelAll()
      continuation.finish()
    }
  }
}
