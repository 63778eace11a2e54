import Testing

@testable import Persistence

/// The flush schedule's interleavings, event by event, with no clock and no task: what the
/// machine tells its owner to do is the whole behaviour.
@Suite struct PersistenceFlushStateMachineTests {
  typealias Machine = PersistenceFlushStateMachine<String>

  func makeMachine(loopThreshold: Int = 100) -> Machine {
    Machine(
      debounce: .milliseconds(250), maxWait: .seconds(1),
      retry: RetryPolicy(initialDelay: .milliseconds(500), maximumDelay: .seconds(30)),
      loopThreshold: loopThreshold)
  }

  @Test func theFirstDrainArmsBothTimersAndLaterOnesOnlyTheDebounce() {
    var machine = makeMachine()
    #expect(machine.drained() == .init(debounce: .milliseconds(250), deadline: .seconds(1)))
    #expect(machine.drained() == .init(debounce: .milliseconds(250)))
    #expect(machine.drained() == .init(debounce: .milliseconds(250)))
  }

  @Test func aFlushThatTookBatchesRearmsTheDeadlineForTheNextDrain() {
    var machine = makeMachine()
    _ = machine.drained()
    #expect(machine.beginFlush() == true)
    machine.tookBatches()
    _ = machine.drained()  // during the flush: goes into the next one
    machine.flushCommitted()
    _ = machine.flushEnded()
    // The drain during the flush armed a deadline of its own: the next one does not.
    #expect(machine.drained() == .init(debounce: .milliseconds(250)))
  }

  @Test func aDrainDuringARetryBackoffStartsNoTimer() {
    var machine = makeMachine()
    _ = machine.drained()
    #expect(machine.beginFlush() == true)
    machine.tookBatches()
    #expect(machine.flushFailed() == .retry(after: .milliseconds(500)))
    _ = machine.flushEnded()

    // The retry flushes everything pending when it fires: drains meanwhile must not flush
    // earlier (a debounce would hammer a failing database).
    #expect(machine.drained() == .init())
    #expect(machine.drained() == .init())

    machine.timerFired()  // the retry
    #expect(machine.beginFlush() == true)
    machine.tookBatches()
    machine.flushCommitted()
    _ = machine.flushEnded()
    #expect(machine.consecutiveFailures == 0)
    #expect(machine.drained() == .init(debounce: .milliseconds(250), deadline: .seconds(1)))
  }

  @Test func retriesBackOffWithEachConsecutiveFailure() {
    var machine = makeMachine()
    var delays: [Machine.AfterFailure] = []
    for _ in 0..<4 {
      #expect(machine.beginFlush() == true)
      machine.tookBatches()
      delays.append(machine.flushFailed())
      _ = machine.flushEnded()
    }
    #expect(
      delays == [
        .retry(after: .milliseconds(500)), .retry(after: .seconds(1)),
        .retry(after: .seconds(2)), .retry(after: .seconds(4)),
      ])
    #expect(machine.consecutiveFailures == 4)
  }

  @Test func anExplicitFlushDuringATimersFlushWaitsThenRunsAfterIt() {
    var machine = makeMachine()
    _ = machine.drained()
    machine.timerFired()
    #expect(machine.beginFlush() == true)  // the timer's flush
    machine.tookBatches()

    #expect(machine.beginFlush() == false)  // flush() finds it running
    machine.waitForFlush("flush()")
    #expect(!machine.isIdle)

    machine.flushCommitted()
    let ended = machine.flushEnded()
    #expect(ended.nextFlush == "flush()")
    #expect(ended.idle.isEmpty)  // the timer's launch has not ended yet
    #expect(machine.beginFlush() == true)  // flush() now owns the next flush
  }

  @Test func waitersForIdleResumeOnlyWhenNoFlushRunsOrIsLaunched() {
    var machine = makeMachine()
    _ = machine.drained()
    machine.timerFired()
    machine.waitForIdle("waitUntilIdle()")
    #expect(machine.beginFlush() == true)
    machine.tookBatches()
    machine.flushCommitted()
    #expect(machine.flushEnded().idle.isEmpty)  // the launched flush task is still running
    #expect(machine.launchedFlushEnded() == ["waitUntilIdle()"])
    #expect(machine.isIdle)
  }

  @Test func aLaunchThatCouldNotStartLeavesTheMachineIdle() {
    var machine = makeMachine()
    machine.timerFired()
    machine.waitForIdle("waitUntilIdle()")
    #expect(machine.launchFailed() == ["waitUntilIdle()"])
    #expect(machine.isIdle)
  }

  @Test func shutdownDuringAFailingFlushSchedulesNoRetry() {
    var machine = makeMachine()
    _ = machine.drained()
    machine.timerFired()
    #expect(machine.beginFlush() == true)  // the timer's flush, failing
    machine.tookBatches()

    machine.shutdown()
    #expect(machine.beginFlush() == false)  // shutdown()'s own flush waits for it
    machine.waitForFlush("shutdown()")

    #expect(machine.flushFailed() == .waitForShutdownRetry)
    #expect(!machine.retryArmed)
    #expect(machine.flushEnded().nextFlush == "shutdown()")
    #expect(machine.beginFlush() == true)  // shutdown() flushes what is pending
    #expect(machine.flushFailed() == .waitForShutdownRetry)  // and still schedules nothing
    #expect(machine.consecutiveFailures == 2)
  }

  @Test func afterShutdownADrainStartsNoTimer() {
    var machine = makeMachine()
    machine.shutdown()
    #expect(machine.isShuttingDown)
    #expect(machine.drained() == .init())
  }

  @Test func theLoopWarningComesOncePerFlushWindow() {
    var machine = makeMachine(loopThreshold: 2)
    #expect(machine.drained().loopWarning == nil)
    #expect(machine.drained().loopWarning == nil)
    #expect(machine.drained().loopWarning == 3)
    #expect(machine.drained().loopWarning == nil)

    #expect(machine.beginFlush() == true)
    machine.tookBatches()  // a new window
    machine.flushCommitted()
    _ = machine.flushEnded()
    for _ in 0..<2 { #expect(machine.drained().loopWarning == nil) }
    #expect(machine.drained().loopWarning == 3)
  }

  @Test func aFlushWithNothingToTakeKeepsTheTimersArmed() {
    var machine = makeMachine()
    _ = machine.drained()
    #expect(machine.deadlineArmed)
    #expect(machine.beginFlush() == true)
    // No batch taken (nothing pending): tookBatches() is not called.
    _ = machine.flushEnded()
    #expect(machine.deadlineArmed)
    #expect(machine.drained().deadline == nil)
  }
}
