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
public final class ManualClock: Clock, Sendable {
  public struct Instant: InstantProtocol {
    /// The time since the clock was created.
    public var offset: Duration

    public init(offset: Duration) { self.offset = offset }
    public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    public func duration(to other: Instant) -> Duration { other.offset - offset }
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
  }

  private let state = Mutex(State())

  public init() {}

  public var now: Instant { state.withLock { $0.now } }
  public var minimumResolution: Duration { .zero }

  public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    try Task.checkCancellation()
    let id = state.withLock { state in
      state.nextID += 1
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let isDue = state.withLock { state in
          guard deadline > state.now else { return true }
          state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
          return false
        }
        if isDue { continuation.resume() }
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

  /// Moves time forward and wakes every sleeper whose deadline has come, earliest first.
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
