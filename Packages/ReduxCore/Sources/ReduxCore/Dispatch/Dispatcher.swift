import Synchronization

/// The thread-safe owner of a ``DispatchQueueStateMachine``: admission from any thread, batches
/// for the main-actor drain.
final class Dispatcher<Element: Sendable>: Sendable {
  typealias Machine = DispatchQueueStateMachine<Element, CheckedContinuation<Void, Never>>

  private let machine: Mutex<Machine>

  init(capacity: Int) {
    machine = Mutex(Machine(capacity: capacity))
  }

  func enqueue(_ element: Element, id: String, limit: UInt) -> Machine.Admission {
    machine.withLock { $0.enqueue(element, id: id, limit: limit) }
  }

  func release(id: String) {
    machine.withLock { $0.release(id: id) }
  }

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
