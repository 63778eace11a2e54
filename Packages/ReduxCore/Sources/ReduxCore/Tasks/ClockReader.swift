/// An injected clock, read as durations since the reader was made: the clock convention of
/// ReduxKit. Every debounce, timer, stale time and gc time reads one of these, so tests inject a
/// `ManualClock` (ReduxCoreTesting) and production a `ContinuousClock`.
///
/// ```swift
/// let clock = ClockReader(ContinuousClock())
/// let armedAt = clock.now()
/// let sleep = clock.sleep(for: .milliseconds(250))   // the deadline is fixed here
/// tasks.run(id: "debounce") { try await sleep(); flush() } onFailure: { _ in }
/// ```
public struct ClockReader: Sendable {
  /// Sleeps until a deadline fixed when the sleep was made.
  public typealias Sleep = @Sendable () async throws -> Void

  private let elapsed: @Sendable () -> Duration
  /// Whether it reads `ContinuousClock`, from `continuousOrigin`.
  ///
  /// NB: a flag beside the instant, not an optional instant: `ContinuousClock.Instant` is a
  /// resilient type, and its optional is tested and copied through value witnesses.
  private let readsContinuousClock: Bool
  private let continuousOrigin: ContinuousClock.Instant
  private let sleeper: @Sendable (Duration) -> Sleep

  /// Reads `clock`, from now on.
  public init<C: Clock<Duration>>(_ clock: C) {
    // NB: the production clock's closures are compiled for its concrete type. The generic ones
    // read the clock through its protocol's witnesses and look up its `Instant`'s type on every
    // call (about 220 instructions a read), which a reader called once per recorded action or
    // admission decision pays often.
    if let continuous = clock as? ContinuousClock {
      let origin = continuous.now
      readsContinuousClock = true
      continuousOrigin = origin
      elapsed = { origin.duration(to: .now) }
      sleeper = { delay in
        guard delay <= Self.longestTimer else { return Self.untilCancelled }
        let deadline = ContinuousClock.now.advanced(by: delay)
        return { try await continuous.sleep(until: deadline, tolerance: nil) }
      }
      return
    }
    let origin = clock.now
    readsContinuousClock = false
    continuousOrigin = .now
    elapsed = { origin.duration(to: clock.now) }
    sleeper = { delay in
      guard delay <= Self.longestTimer else { return Self.untilCancelled }
      let deadline = clock.now.advanced(by: delay)
      return { try await clock.sleep(until: deadline, tolerance: nil) }
    }
  }

  /// The longest sleep with a timer, about 136 years. A longer one (`.seconds(Int64.max)`, the
  /// usual way to write "never") waits with no timer until its task is cancelled.
  ///
  /// NB: a system clock's deadline beyond its range traps ("Not enough bits to represent the
  /// passed value") when the sleep converts it; a configuration value never traps the host.
  public static let longestTimer = Duration.seconds(Int64(1) << 32)

  /// Waits until the task is cancelled, then throws `CancellationError`.
  private static let untilCancelled: Sleep = {
    let waiter = CancellationWaiter()
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { waiter.wait($0) }
    } onCancel: {
      waiter.cancel()
    }
  }

  /// The time since the reader was made.
  public func now() -> Duration {
    elapsed()
  }

  /// What ``now()`` read at `instant` of the continuous clock: a time taken already (a store
  /// timing its actions) costs no second reading when this reader reads the same clock, and is
  /// read anew from a clock of another kind (a `ManualClock` in tests).
  public func now(at instant: ContinuousClock.Instant) -> Duration {
    readsContinuousClock ? continuousOrigin.duration(to: instant) : elapsed()
  }

  /// A sleep that ends `delay` after this call, however late the task that runs it starts:
  /// a timer measures from the moment it was armed. A `delay` longer than ``longestTimer``
  /// ends only when the task is cancelled.
  public func sleep(for delay: Duration) -> Sleep {
    sleeper(delay)
  }
}
