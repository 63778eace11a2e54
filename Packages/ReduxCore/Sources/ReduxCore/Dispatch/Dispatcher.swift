public import Synchronization

/// The thread-safe owner of a ``DispatchQueueStateMachine``: admission from any thread, batches
/// for the main-actor drain.
@usableFromInline
final class Dispatcher<Element: Sendable>: Sendable {
  @usableFromInline typealias Machine = DispatchQueueStateMachine<
    Element, CheckedContinuation<Void, Never>
  >

  @usableFromInline let machine: Mutex<Machine>

  @usableFromInline
  init(capacity: Int) {
    machine = Mutex(Machine(capacity: capacity))
  }

  @inlinable
  func enqueue(_ element: Element, id: String, limit: UInt) -> Machine.Admission {
    machine.withLock { $0.enqueue(element, id: id, limit: limit) }
  }

  /// How many elements were refused since the queue was created.
  var refusedCount: Int { machine.withLock { $0.refusedCount } }

  /// Removes the first pending element matching `predicate`, if it is still pending.
  ///
  /// - Complexity: O(*n*), *n* the number of pending elements.
  @usableFromInline
  func removeFirst(where predicate: @Sendable (Element) -> Bool) -> Element? {
    machine.withLock { $0.removeFirst(where: predicate) }
  }

  /// Counts a refusal decided by an admission policy.
  @usableFromInline
  func countRefusal() {
    machine.withLock { $0.countRefusal() }
  }

  /// Returns `true` once: the first caller warns that refusals go unheard.
  @usableFromInline
  func claimRefusalWarning() -> Bool {
    machine.withLock { $0.claimRefusalWarning() }
  }

  @inlinable
  func release(id: String) {
    machine.withLock { $0.release(id: id) }
  }

  @inlinable
  func nextBatch(into batch: inout [Element]) -> Machine.Batch {
    machine.withLock { $0.nextBatch(into: &batch) }
  }

  /// Suspends until every admitted element has been processed and the drain has gone idle.
  func waitForIdle() async {
    await withCheckedContinuation { continuation in
      let registered = machine.withLock { $0.waitForIdle(continuation) }
      if !registered { continuation.resume() }
    }
  }

  func shutdown() -> [Element] {
    let (discarded, waiters) = machine.withLock { $0.shutdown() }
    for waiter in waiters { waiter.resume() }
    return discarded
  }
}
