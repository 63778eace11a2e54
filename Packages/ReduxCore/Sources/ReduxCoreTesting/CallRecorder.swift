import Synchronization

/// Records the calls of a test double, in order, and lets a test await a number of them.
///
/// A stand-in for a network function or a database records each call; the test awaits the call
/// it expects instead of yielding until it happened:
///
/// ```swift
/// let calls = CallRecorder<String>()
/// let client = Client(fetch: { key in calls.record(key); return "value" })
/// client.prefetch("a")               // starts a task that calls fetch
/// await calls.waitForCalls(1)        // resumes when the task has called it
/// #expect(calls.calls == ["a"])
/// ```
public final class CallRecorder<Call: Sendable>: Sendable {
  private struct State {
    var calls: [Call] = []
    /// Tests waiting for this many calls.
    var waiters = CountWaiters()
  }

  private let state = Mutex(State())

  /// Creates a recorder with no calls.
  public init() {}

  /// Every call recorded so far, in order.
  ///
  /// - Complexity: O(*n*), where *n* is the number of calls: it copies them.
  public var calls: [Call] { state.withLock { $0.calls } }

  /// The number of calls recorded so far.
  public var count: Int { state.withLock { $0.calls.count } }

  /// Records a call and resumes the tests waiting for that many calls.
  ///
  /// - Parameter call: What the call received.
  /// - Returns: The number of calls recorded, this one included.
  /// - Complexity: O(*w*), where *w* is the number of waiting tests.
  @discardableResult
  public func record(_ call: Call) -> Int {
    let (count, reached) = state.withLock { state in
      state.calls.append(call)
      return (state.calls.count, state.waiters.satisfied(by: state.calls.count))
    }
    for waiter in reached { waiter.resume() }
    return count
  }

  /// Suspends until at least `count` calls were recorded (at once if they were).
  ///
  /// - Parameter count: How many calls to wait for.
  public func waitForCalls(_ count: Int) async {
    await withCheckedContinuation { continuation in
      let isWaiting = state.withLock { state in
        state.waiters.wait(for: count, current: state.calls.count, continuation)
      }
      if !isWaiting { continuation.resume() }
    }
  }
}

extension CallRecorder where Call == Void {
  /// Records a call that receives nothing.
  ///
  /// - Returns: The number of calls recorded, this one included.
  @discardableResult
  public func record() -> Int {
    record(())
  }
}
