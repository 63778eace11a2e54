/// Tests waiting for a count (calls recorded, tasks at a gate, sleepers on a clock) to reach a
/// value: the one waiting list of ReduxCoreTesting's doubles, kept inside their locks.
struct CountWaiters {
  private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

  /// Registers `continuation` until the count reaches `count`. Returns `false` without
  /// registering it when `current` already does: the caller then resumes it at once.
  mutating func wait(
    for count: Int, current: Int, _ continuation: CheckedContinuation<Void, Never>
  ) -> Bool {
    guard current < count else { return false }
    waiters.append((count, continuation))
    return true
  }

  /// Removes and returns the waiters that `current` satisfies, to resume outside the lock.
  ///
  /// - Complexity: O(*w*), *w* the number of waiters.
  mutating func satisfied(by current: Int) -> [CheckedContinuation<Void, Never>] {
    guard !waiters.isEmpty else { return [] }
    let satisfied = waiters.filter { $0.count <= current }.map(\.continuation)
    waiters.removeAll { $0.count <= current }
    return satisfied
  }
}
