import ReduxCore
import ReduxCoreTesting
import Testing

@Suite(.timeLimit(.minutes(1))) struct ClockReaderTests {
  @Test func readsTheInjectedClockAsElapsedTime() async {
    let clock = ManualClock()
    let reader = ClockReader(clock)
    #expect(reader.now() == .zero)
    await clock.advance(by: .milliseconds(1_500))
    #expect(reader.now() == .milliseconds(1_500))
  }

  /// A time the store took already (when an action ended) reads as `now()` would have then on
  /// the continuous clock; another clock is read anew.
  @Test func anInstantOfTheContinuousClockReadsAsElapsedTime() async {
    let continuous = ClockReader(ContinuousClock())
    let before = continuous.now()
    let instant = ContinuousClock.now
    let at = continuous.now(at: instant)
    #expect(before <= at && at <= continuous.now())
    #expect(continuous.now(at: instant.advanced(by: .seconds(3))) == at + .seconds(3))

    let clock = ManualClock()
    let manual = ClockReader(clock)
    await clock.advance(by: .seconds(2))
    #expect(manual.now(at: ContinuousClock.now.advanced(by: .seconds(60))) == .seconds(2))
  }

  @Test func aSleepEndsAtTheDeadlineFixedWhenItWasMade() async throws {
    let clock = ManualClock()
    let reader = ClockReader(clock)
    let sleep = reader.sleep(for: .seconds(1))
    // The task that runs the sleep starts late: the deadline does not move.
    await clock.advance(by: .seconds(2))
    try await sleep()
    #expect(clock.sleeperCount == 0)
  }

  @Test func aManualClockWakesSleepersOnlyWhenTheirDeadlineComes() async throws {
    let clock = ManualClock()
    let sleeper = Task {
      try await clock.sleep(until: clock.now.advanced(by: .seconds(1)), tolerance: nil)
    }
    await clock.waitForSleepers()
    await clock.advance(by: .milliseconds(999))
    #expect(clock.sleeperCount == 1)
    await clock.advance(by: .milliseconds(1))
    try await sleeper.value
    #expect(clock.sleeperCount == 0)
  }

  @Test func cancellingASleeperThrowsAndForgetsIt() async {
    let clock = ManualClock()
    let sleeper = Task {
      try await clock.sleep(until: clock.now.advanced(by: .seconds(1)), tolerance: nil)
    }
    await clock.waitForSleepers()
    sleeper.cancel()
    await #expect(throws: CancellationError.self) { try await sleeper.value }
    #expect(clock.sleeperCount == 0)
  }
}
