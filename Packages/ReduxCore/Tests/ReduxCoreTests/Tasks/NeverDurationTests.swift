import ReduxCore
import Testing

/// `Duration.seconds(Int64.max)`, the usual way to write "never", in every ReduxCore API that
/// takes a duration: it never traps the host (a system clock cannot hold such a deadline); it
/// waits with no timer, until cancelled.
///
/// NB: on the real clock, on purpose: a `ManualClock` holds any deadline, so only a system
/// clock shows the trap. Nothing here waits for time to pass.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct NeverDurationTests {
  nonisolated static let never = Duration.seconds(Int64.max)

  @Test(arguments: [never, ClockReader.longestTimer + .nanoseconds(1)])
  func aSleepLongerThanAnyTimerEndsOnlyWhenCancelled(_ delay: Duration) async {
    let sleep = ClockReader(ContinuousClock()).sleep(for: delay)
    let sleeper = Task { try await sleep() }
    sleeper.cancel()
    await #expect(throws: CancellationError.self) { try await sleeper.value }
  }

  @Test func aDebounceAndAThrottleOfNeverHoldTheirActions() async {
    let store = CounterStore(
      initialState: TestState(), reducers: [counter], clock: ContinuousClock())
    #expect(store.dispatch(.add(1), policy: .debounce(Self.never, maxWait: Self.never)))
    #expect(store.dispatch(.inc, policy: .throttle(Self.never, leading: true, trailing: true)))
    #expect(store.dispatch(.inc, policy: .throttle(Self.never, leading: true, trailing: true)))
    _ = await store.dispatchWithResult(.set(10))
    // The throttle's leading one ran; the debounced one and the trailing one wait forever.
    #expect(store.state.log == ["inc", "set"])
    store.shutdown()
  }

  @Test func aTaskPolicyOfNeverHoldsItsTaskUntilCancelled() async {
    let tasks = TaskManager(clock: ContinuousClock())
    let refused = Refusals()
    let admission = tasks.run(id: "never", policy: .debounce(Self.never, maxWait: Self.never)) {
    } onFailure: { _ in
    } onRefusal: { @MainActor refusal in
      refused.add(refusal)
    }
    guard case .held = admission else {
      Issue.record("expected the task to be held, not \(admission)")
      return
    }
    tasks.cancelTask(id: "never")
    await refused.wait(for: 1)
    #expect(refused.all == [.cancelled])
    tasks.shutdown()
  }
}

/// The refusals a task's `onRefusal` was told, awaited one by one.
@MainActor
final class Refusals {
  private(set) var all: [TaskRefusal] = []
  private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

  func add(_ refusal: TaskRefusal) {
    all.append(refusal)
    let ready = waiters.filter { $0.count <= all.count }
    waiters.removeAll { $0.count <= all.count }
    for waiter in ready { waiter.continuation.resume() }
  }

  func wait(for count: Int) async {
    guard all.count < count else { return }
    await withCheckedContinuation { waiters.append((count, $0)) }
  }
}
