import Synchronization

/// A clock that moves only when a test advances it: the test clock of every ReduxKit package.
///
/// It never yields to the scheduler. Code under test that fixes a timer's deadline when it arms
/// the timer (`clock.now.advanced(by:)`) is timed exactly however late its task starts: a sleeper
/// registered after its deadline passed returns at once. Tests then wait for the effect itself
/// (a recorded call, `waitUntilIdle()`), never for time.
///
/// NB: swift-clocks' `TestClock` yields with `Task.megaYield()`, which spawns detached
/// background-priority tasks on every advance; on Linux (Swift 6.3.1) a test process doing that
/// alongside other suites hung at exit in about one run in eight.
///
/// ```swift
/// let clock = ManualClock()
/// let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
/// while clock.sleeperCount == 0 { await Task.yield() }  // the sleeper is registered
/// await clock.advance(by: .seconds(1))                   // and wakes now, not in a second
/// try await sleeper.value
/// ```
public final class ManualClock: Clock, Sendable {
  /// A point in a ``ManualClock``'s time: the duration since the clock was created.
  public struct Instant: InstantProtocol {
    /// The time since the clock was created.
    public var offset: Duration

    /// Creates the instant `offset` after the clock's creation.
    ///
    /// - Parameter offset: The time since the clock was created.
    public init(offset: Duration) { self.offset = offset }

    /// The instant `duration` after this one.
    ///
    /// - Parameter duration: How far to move; negative moves back.
    /// - Returns: The later (or earlier) instant.
    public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

    /// The time from this instant to `other`.
    ///
    /// - Parameter other: Another instant of the same clock.
    /// - Returns: `other` minus this instant; negative when `other` is earlier.
    public func duration(to other: Instant) -> Duration { other.offset - offset }

    /// Whether `lhs` comes before `rhs`.
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  private struct Sleeper {
    let id: Int
    let deadline: Instant
    let continuation: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var now = Instant(offset: .zero)
    var nextID = 0
    var sleepers: [Sleeper] = []
    /// Tests waiting for this many sleepers.
    var sleeperWaiters = CountWaiters()

    /// Removes and returns the waiters whose count of sleepers is reached.
    mutating func satisfiedWaiters() -> [CheckedContinuation<Void, Never>] {
      sleeperWaiters.satisfied(by: sleepers.count)
    }
  }

  private let state = Mutex(State())

  /// Creates a clock at offset zero, with no sleeper.
  public init() {}

  /// The current instant: the sum of every ``advance(by:)`` so far.
  public var now: Instant { state.withLock { $0.now } }

  /// Zero: the clock moves by exactly what a test advances it by.
  public var minimumResolution: Duration { .zero }

  /// Suspends until the clock is advanced to `deadline`, or returns at once if it already is.
  ///
  /// - Parameters:
  ///   - deadline: The instant to wake at.
  ///   - tolerance: Ignored: a sleeper wakes on the ``advance(by:)`` that reaches its deadline.
  /// - Throws: `CancellationError` if the task is cancelled before or while it sleeps.
  /// - Complexity: O(1) to register; O(*s*) when cancelled, where *s* is the number of
  ///   sleepers.
  public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    try Task.checkCancellation()
    let id = state.withLock { state in
      state.nextID += 1
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        // NB: a cancellation that came before the sleeper was registered found nothing to
        // cancel; checked under the lock, it cannot slip between the two.
        let (outcome, satisfied) = state.withLock {
          state -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
          guard deadline > state.now else { return (.success(()), []) }
          guard !Task.isCancelled else { return (.failure(CancellationError()), []) }
          state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
          return (nil, state.satisfiedWaiters())
        }
        if let outcome { continuation.resume(with: outcome) }
        for waiter in satisfied { waiter.resume() }
      }
    } onCancel: {
      let cancelled = state.withLock { state in
        state.sleepers.firstIndex { $0.id == id }.map { state.sleepers.remove(at: $0) }
      }
      cancelled?.continuation.resume(throwing: CancellationError())
    }
  }

  /// The number of sleepers waiting for a later time.
  public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

  /// Suspends until at least `count` tasks sleep on the clock: the moment to ``advance(by:)``
  /// it, so that the time reaches them.
  ///
  /// ```swift
  /// let retry = Task { await client.fetch(…) }   // fails, then sleeps before its retry
  /// await clock.waitForSleepers()
  /// await clock.advance(by: .seconds(1))
  /// ```
  ///
  /// - Parameter count: How many sleepers to wait for.
  /// - Complexity: O(1) to register; each new sleeper checks the waiting tests.
  public func waitForSleepers(_ count: Int = 1) async {
    await withCheckedContinuation { continuation in
      let isWaiting = state.withLock { state in
        state.sleeperWaiters.wait(for: count, current: state.sleepers.count, continuation)
      }
      if !isWaiting { continuation.resume() }
    }
  }

  /// Moves time forward and wakes every sleeper whose deadline has come, earliest first.
  ///
  /// It resumes the sleepers and returns: it does not wait for the woken tasks to run.
  ///
  /// - Parameter duration: How far to move the clock.
  /// - Complexity: O(*s* log *s*), where *s* is the number of sleepers.
  public func advance(by duration: Duration) async {
    let due = state.withLock { state in
      state.now = state.now.advanced(by: duration)
      let now = state.now
      let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
      state.sleepers.removeAll { $0.deadline <= now }
      return due
    }
    for sleeper in due { sleeper.continuation.resume() }
  }
}
