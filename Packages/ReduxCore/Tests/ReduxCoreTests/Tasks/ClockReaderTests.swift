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
