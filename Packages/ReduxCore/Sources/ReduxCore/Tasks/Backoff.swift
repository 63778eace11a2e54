/// An exponential backoff: how long to wait before each retry of a failing operation.
///
/// The wait before retry *n* is `initialDelay × multiplier^(n − 1)`, capped at ``maximumDelay``.
/// It is ReduxKit's one backoff: Persistence's `RetryPolicy` (flush retries) and QueryCache's
/// `QueryRetry` (query function retries) each store one.
///
/// ```swift
/// let backoff = Backoff(initialDelay: .milliseconds(500), maximumDelay: .seconds(30))
/// backoff.delay(beforeRetry: 1)     // 0.5 s
/// backoff.delay(beforeRetry: 3)     // 2 s
/// backoff.delay(beforeRetry: 100)   // 30 s
/// ```
///
/// Sleep for the delay on an injected clock (``ClockReader/sleep(for:)``), so that tests drive
/// the retries with `ManualClock` (ReduxCoreTesting).
public struct Backoff: Hashable, Sendable {
  /// The wait before the first retry.
  public var initialDelay: Duration
  /// The factor applied to the wait before each further retry (`1`: a constant wait).
  public var multiplier: Int
  /// The longest wait.
  public var maximumDelay: Duration
  /// What the initializer changed to bring its arguments into range, one sentence each; empty
  /// when they all were. The component given the backoff logs them as warnings. Part of
  /// equality: a backoff made from out-of-range arguments remembers it.
  public private(set) var adjustments: [String] = []

  /// Creates a backoff.
  ///
  /// An argument out of range does not trap: it is clamped, and ``adjustments`` says how.
  ///
  /// - Parameters:
  ///   - initialDelay: The wait before the first retry; zero or more (a negative one is zero).
  ///   - multiplier: The factor applied to the wait before each further retry; 1 or more (a
  ///     smaller one is 1).
  ///   - maximumDelay: The longest wait; a shorter one than `initialDelay` is `initialDelay`
  ///     (the delay the caller chose wins over a default maximum).
  public init(initialDelay: Duration, multiplier: Int = 2, maximumDelay: Duration) {
    self.initialDelay = max(initialDelay, .zero)
    self.multiplier = max(multiplier, 1)
    self.maximumDelay = max(maximumDelay, self.initialDelay)
    if initialDelay < .zero {
      adjustments.append("Backoff: initialDelay \(initialDelay) is negative; using 0 seconds")
    }
    if multiplier < 1 {
      adjustments.append("Backoff: multiplier \(multiplier) is below 1; using 1")
    }
    if maximumDelay < self.initialDelay {
      adjustments.append(
        "Backoff: maximumDelay \(maximumDelay) is shorter than initialDelay; using \(self.initialDelay)"
      )
    }
  }

  /// The wait before retry number `attempt`: `initialDelay × multiplier^(attempt − 1)`, at most
  /// ``maximumDelay``.
  ///
  /// Any `attempt` is valid: below 1 it counts as 1, and however large it is the result is
  /// capped without overflowing `Duration`.
  ///
  /// - Parameter attempt: The retry about to wait: 1 for the first.
  /// - Returns: The wait, between zero and ``maximumDelay``.
  /// - Complexity: O(min(*a*, log*m*(``maximumDelay`` / ``initialDelay``))) for `attempt` *a* and
  ///   multiplier *m*: at most 127 steps, since a `Duration` holds fewer than 2¹²⁷ attoseconds.
  public func delay(beforeRetry attempt: Int) -> Duration {
    var delay = initialDelay
    // NB: a wait that cannot grow is final at once, so a huge attempt number does not loop.
    guard multiplier > 1, delay > .zero else { return min(delay, maximumDelay) }
    var retry = 1
    while retry < attempt {
      // NB: checked before multiplying, so the product never overflows `Duration`.
      guard delay <= maximumDelay / multiplier else { return maximumDelay }
      delay *= multiplier
      retry += 1
    }
    return min(delay, maximumDelay)
  }
}
