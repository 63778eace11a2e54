import Testing

@testable import ReduxCore

@Suite(.timeLimit(.minutes(1))) struct TaskRegistryStateMachineTests {
  typealias Machine = TaskRegistryStateMachine<String, String, Int>

  func start(_ machine: inout Machine, key: String?, limit: UInt? = nil) -> (UInt64, [String]) {
    guard case .start(let token, let replaced) = machine.reserve(key: key, limit: limit) else {
      Issue.record("reservation refused")
      return (0, [])
    }
    return (token, replaced)
  }

  @Test func reserveAttachFinish() {
    var machine = Machine()
    let (token, replaced) = start(&machine, key: "a")
    #expect(replaced.isEmpty)
    #expect(machine.attach("task-a", token: token) == nil)
    #expect(machine.isRunning(key: "a"))
    #expect(machine.runningCount == 1)
    _ = machine.finish(token: token)
    #expect(!machine.isRunning(key: "a"))
    #expect(machine.runningCount == 0)
  }

  @Test func finishBeforeAttachForgetsTheTask() {
    var machine = Machine()
    let (token, _) = start(&machine, key: nil)
    _ = machine.finish(token: token)
    #expect(machine.runningCount == 0)
    #expect(machine.attach("late", token: token) == nil)
    #expect(machine.runningCount == 0)
  }

  @Test func cancelBeforeAttachCancelsOnAttach() {
    var machine = Machine()
    let (token, _) = start(&machine, key: "a")
    #expect(machine.cancel(key: "a").isEmpty)
    #expect(machine.attach("task-a", token: token) == "task-a")
  }

  @Test func replacementKeepsTheNewTaskWhenTheOldOneFinishes() {
    var machine = Machine()
    let (old, _) = start(&machine, key: "a")
    _ = machine.attach("old", token: old)
    let (new, replaced) = start(&machine, key: "a")
    #expect(replaced == ["old"])
    _ = machine.attach("new", token: new)
    _ = machine.finish(token: old)
    #expect(machine.isRunning(key: "a"))
    #expect(machine.cancel(key: "a") == ["new"])
  }

  @Test func tasksUnderALimitShareTheirIDUpToTheLimit() {
    var machine = Machine()
    let (first, _) = start(&machine, key: "a", limit: 2)
    _ = machine.attach("first", token: first)
    let (second, replaced) = start(&machine, key: "a", limit: 2)
    _ = machine.attach("second", token: second)
    #expect(replaced.isEmpty)
    #expect(machine.liveCount(key: "a") == 2)
    guard case .limited(2) = machine.reserve(key: "a", limit: 2) else {
      Issue.record("a third task under limit(2) was not refused")
      return
    }
    _ = machine.finish(token: first)
    #expect(machine.liveCount(key: "a") == 1)
    let (third, _) = start(&machine, key: "a", limit: 2)
    _ = machine.attach("third", token: third)
    #expect(machine.cancel(key: "a") == ["second", "third"])
    #expect(!machine.isRunning(key: "a"))
  }

  @Test func aTaskTakingTheIDOverReplacesEveryTaskSharingIt() {
    var machine = Machine()
    for name in ["x", "y"] {
      let (token, _) = start(&machine, key: "a", limit: 0)
      _ = machine.attach(name, token: token)
    }
    let (token, replaced) = start(&machine, key: "a")
    _ = machine.attach("z", token: token)
    #expect(replaced == ["x", "y"])
    #expect(machine.liveCount(key: "a") == 1)
    guard case .limited(1) = machine.reserve(key: "a", limit: 1) else {
      Issue.record("limit(1) did not count the task that took the id over")
      return
    }
  }

  @Test func idleWaitersAreReturnedWhenTheLastTaskFinishes() {
    var machine = Machine()
    let idle = machine.waitForIdle(1)
    #expect(!idle)
    let (first, _) = start(&machine, key: nil)
    let (second, _) = start(&machine, key: nil)
    let waiting = machine.waitForIdle(2)
    #expect(waiting)
    #expect(machine.finish(token: first) == [])
    #expect(machine.finish(token: second) == [2])
  }

  @Test func shutdownCancelsAndRefuses() {
    var machine = Machine()
    let (token, _) = start(&machine, key: "a")
    _ = machine.attach("a", token: token)
    #expect(machine.shutdown() == ["a"])
    guard case .refused = machine.reserve(key: nil) else {
      Issue.record("expected refusal after shutdown")
      return
    }
  }

  @Test func theDictionariesReleaseTheirCapacityWhenTheTasksEnd() {
    var machine = Machine()
    var tokens: [UInt64] = []
    for index in 0..<10_000 {
      let (token, _) = start(&machine, key: "timer \(index)")
      #expect(machine.attach("task \(index)", token: token) == nil)
      tokens.append(token)
    }
    #expect(machine.capacities.slots >= 10_000 && machine.capacities.liveTokens >= 10_000)
    // Half are cancelled by id (and still unwinding), then all end, in token order.
    for index in stride(from: 0, to: 10_000, by: 2) {
      #expect(machine.cancel(key: "timer \(index)") == ["task \(index)"])
    }
    for (index, token) in tokens.enumerated() {
      _ = machine.finish(token: token)
      if index == 8_999 {
        // 1,000 left: the buckets shrank to fit them, with their ids still live.
        #expect(machine.capacities.slots < 4 * 1_000)
        #expect(machine.capacities.liveTokens < 4 * 500)
        #expect(machine.isRunning(key: "timer 9999") && !machine.isRunning(key: "timer 9998"))
      }
    }
    #expect(machine.runningCount == 0)
    #expect(machine.capacities.slots <= 64 && machine.capacities.liveTokens <= 64)
  }

  @Test func aSmallRegistryKeepsItsCapacity() {
    var machine = Machine()
    for round in 0..<100 {
      let (token, _) = start(&machine, key: "a")
      #expect(machine.attach("task \(round)", token: token) == nil)
      _ = machine.finish(token: token)
    }
    let (token, _) = start(&machine, key: "a")
    let capacity = machine.capacities.slots
    _ = machine.finish(token: token)
    #expect(machine.capacities.slots == capacity)
  }
}
