import Testing

@testable import ReduxCore

@Suite(.timeLimit(.minutes(1))) struct DispatchQueueStateMachineTests {
  typealias Machine = DispatchQueueStateMachine<Int, String>

  @Test func refusalsAreCountedAndTheWarningIsClaimedOnce() {
    var machine = Machine(capacity: 1)
    #expect(machine.enqueue(1, id: "a", limit: 0) == .accepted(scheduleDrain: true))
    #expect(machine.enqueue(2, id: "a", limit: 0) == .refused(.queueFull(capacity: 1)))
    #expect(machine.enqueue(3, id: "b", limit: 1) == .refused(.queueFull(capacity: 1)))
    #expect(machine.refusedCount == 2)
    let claims = [machine.claimRefusalWarning(), machine.claimRefusalWarning()]
    #expect(claims == [true, false])
    _ = machine.shutdown()
    #expect(machine.enqueue(4, id: "a", limit: 0) == .refused(.shutdown))
    #expect(machine.refusedCount == 3)
  }

  @Test func onlyTheFirstAdmissionSchedulesADrain() {
    var machine = Machine(capacity: 10)
    #expect(machine.enqueue(1, id: "a", limit: 0) == .accepted(scheduleDrain: true))
    #expect(machine.enqueue(2, id: "a", limit: 0) == .accepted(scheduleDrain: false))
    var batch: [Int] = []
    guard case .ready = machine.nextBatch(into: &batch) else {
      Issue.record("no batch")
      return
    }
    #expect(batch == [1, 2])
    #expect(machine.enqueue(3, id: "a", limit: 0) == .accepted(scheduleDrain: false))
    guard case .ready = machine.nextBatch(into: &batch) else {
      Issue.record("no batch")
      return
    }
    #expect(batch == [3])
    guard case .idle = machine.nextBatch(into: &batch) else {
      Issue.record("not idle")
      return
    }
    #expect(machine.enqueue(4, id: "a", limit: 0) == .accepted(scheduleDrain: true))
  }

  @Test func capacityAndRateLimitRefusals() {
    var machine = Machine(capacity: 3)
    #expect(machine.enqueue(1, id: "a", limit: 1) == .accepted(scheduleDrain: true))
    #expect(
      machine.enqueue(2, id: "a", limit: 1) == .refused(.rateLimited(actionID: "a", limit: 1)))
    #expect(machine.enqueue(3, id: "a", limit: 0) == .accepted(scheduleDrain: false))
    #expect(machine.enqueue(4, id: "b", limit: 0) == .accepted(scheduleDrain: false))
    #expect(machine.enqueue(5, id: "c", limit: 0) == .refused(.queueFull(capacity: 3)))
    machine.release(id: "a")
    var batch: [Int] = []
    _ = machine.nextBatch(into: &batch)
    #expect(machine.enqueue(6, id: "a", limit: 1) == .accepted(scheduleDrain: false))
  }

  @Test func idleWaitersResumeWhenTheDrainFindsNothing() {
    var machine = Machine(capacity: 3)
    let registered = machine.waitForIdle("early")
    #expect(!registered)
    _ = machine.enqueue(1, id: "a", limit: 0)
    let waiting = machine.waitForIdle("w")
    #expect(waiting)
    var batch: [Int] = []
    _ = machine.nextBatch(into: &batch)
    guard case .idle(let waiters) = machine.nextBatch(into: &batch) else {
      Issue.record("not idle")
      return
    }
    #expect(waiters == ["w"])
  }

  @Test func shutdownReturnsWhatNeverRanAndRefusesAfter() {
    var machine = Machine(capacity: 3)
    _ = machine.enqueue(1, id: "a", limit: 1)
    _ = machine.enqueue(2, id: "b", limit: 0)
    _ = machine.waitForIdle("w")
    let (discarded, waiters) = machine.shutdown()
    #expect(discarded == [1, 2])
    #expect(waiters == ["w"])
    #expect(machine.enqueue(3, id: "a", limit: 0) == .refused(.shutdown))
    machine.release(id: "a")
    var batch: [Int] = []
    guard case .shutdown = machine.nextBatch(into: &batch) else {
      Issue.record("not shut down")
      return
    }
    #expect(machine.shutdown().discarded.isEmpty)
  }
}
