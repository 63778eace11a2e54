/// The dispatcher's queue as a pure state machine: admission (capacity, rate limits, shutdown),
/// FIFO batches for the main-actor drain, and waiters for "idle".
///
/// It performs no side effects: every event returns what its owner (``Dispatcher``) must do.
@usableFromInline
struct DispatchQueueStateMachine<Element, Waiter> {
  @usableFromInline
  enum Phase: Equatable {
    /// No drain job is scheduled; the next admitted element must schedule one.
    case idle
    /// A drain job is scheduled or running; it will take every element admitted meanwhile.
    case draining
    /// Terminal: nothing is admitted any more.
    case shutdown
  }

  @usableFromInline
  enum Admission: Equatable {
    case accepted(scheduleDrain: Bool)
    case refused(DispatchError)
  }

  @usableFromInline
  enum Batch {
    /// The batch buffer holds the next elements: process them in order, then ask again.
    case ready
    /// The queue is empty and the drain job must end; resume these waiters.
    case idle([Waiter])
    /// The queue was shut down; the drain job must end.
    case shutdown
  }

  @usableFromInline let capacity: Int
  @usableFromInline var phase = Phase.idle
  @usableFromInline var pending: [Element] = []
  @usableFromInline var pendingCount: [String: UInt] = [:]
  @usableFromInline var idleWaiters: [Waiter] = []
  /// How many elements were refused since the queue was created.
  @usableFromInline var refusedCount = 0
  /// Whether the owner already warned that nobody listens to refusals.
  var hasWarnedOfRefusal = false

  @usableFromInline
  init(capacity: Int) {
    precondition(capacity > 0, "A dispatch queue needs a capacity of at least 1, got \(capacity)")
    self.capacity = capacity
  }

  /// Admits `element` unless the queue is shut down, full, or `limit` elements of `id` are
  /// already pending. `limit == 0` means unlimited and is not counted.
  @inlinable
  mutating func enqueue(_ element: Element, id: String, limit: UInt) -> Admission {
    if phase == .shutdown { return refuse(.shutdown) }
    if pending.count >= capacity { return refuse(.queueFull(capacity: capacity)) }
    if limit > 0 {
      let count = pendingCount[id, default: 0]
      if count >= limit { return refuse(.rateLimited(actionID: id, limit: limit)) }
      pendingCount[id] = count + 1
    }
    pending.append(element)
    if phase == .idle {
      phase = .draining
      return .accepted(scheduleDrain: true)
    }
    return .accepted(scheduleDrain: false)
  }

  @inlinable
  mutating func refuse(_ reason: DispatchError) -> Admission {
    refusedCount += 1
    return .refused(reason)
  }

  /// Removes the first pending element matching `predicate` (one that a newer one superseded);
  /// `nil` if none is pending any more (it is being processed, or was).
  ///
  /// - Complexity: O(*n*), *n* the number of pending elements.
  mutating func removeFirst(where predicate: (Element) -> Bool) -> Element? {
    guard let index = pending.firstIndex(where: predicate) else { return nil }
    return pending.remove(at: index)
  }

  /// Counts a refusal decided elsewhere (by an admission policy).
  mutating func countRefusal() {
    refusedCount += 1
  }

  /// Returns `true` the first time it is called: the owner warns once that refusals go unheard.
  mutating func claimRefusalWarning() -> Bool {
    defer { hasWarnedOfRefusal = true }
    return !hasWarnedOfRefusal
  }

  /// Frees the rate-limit slot of a limited element once its pipeline has run.
  @inlinable
  mutating func release(id: String) {
    guard let count = pendingCount[id] else {
      // A shutdown clears the counters while a batch may still be running.
      precondition(phase == .shutdown, "Released '\(id)' that holds no slot (phase \(phase))")
      return
    }
    pendingCount[id] = count == 1 ? nil : count - 1
  }

  /// Moves every pending element into `batch`, whose storage (already processed) is reused.
  @inlinable
  mutating func nextBatch(into batch: inout [Element]) -> Batch {
    switch phase {
    case .shutdown:
      return .shutdown
    case .idle:
      preconditionFailure("A drain asked for a batch while no drain was scheduled")
    case .draining:
      if pending.isEmpty {
        phase = .idle
        defer { idleWaiters = [] }
        return .idle(idleWaiters)
      }
      batch.removeAll(keepingCapacity: true)
      swap(&pending, &batch)
      return .ready
    }
  }

  /// Registers `waiter` for the next time the queue is idle. Returns `false` if it already is
  /// idle (or shut down), in which case the caller resumes it at once.
  mutating func waitForIdle(_ waiter: Waiter) -> Bool {
    guard phase == .draining else { return false }
    idleWaiters.append(waiter)
    return true
  }

  /// Ends the queue. Returns the elements that will never run and the waiters to resume.
  mutating func shutdown() -> (discarded: [Element], waiters: [Waiter]) {
    guard phase != .shutdown else { return ([], []) }
    phase = .shutdown
    defer {
      pending = []
      pendingCount = [:]
      idleWaiters = []
    }
    return (pending, idleWaiters)
  }
}
