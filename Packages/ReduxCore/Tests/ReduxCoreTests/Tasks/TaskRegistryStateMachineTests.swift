import Testing

@testable import ReduxCore

@Suite(.timeLimit(.minutes(1))) struct TaskRegistryStateMachineTests {
  typealias Machine = TaskRegistryStateMachine<String, String, Int>

  func start(_ machine: inout Machine, key: String?) -> (UInt64, String?) {
    guard case .start(let token, let replaced) = machine.reserve(key: key) else {
      Issue.record("reservation refused")
      return (0, nil)
    }
    return (token, replaced)
  }

  @Test func reserveAttachFinish() {
    var machine = Machine()
    let (token, replaced) = start(&machine, key: "a")
    #expect(replaced == nil)
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
    #expect(machine.cancel(key: "a") == nil)
    #expect(machine.attach("task-a", token: token) == "task-a")
  }

  @Test func replacementKeepsTheNewTaskWhenTheOldOneFinishes() {
    var machine = Machine()
    let (old, _) = start(&machine, key: "a")
    _ = machine.attach("old", token: old)
    let (new, replaced) = start(&machine, key: "a")
    #expect(replaced == "old")
    _ = machine.attach("new", token: new)
    _ = machine.finish(token: old)
    #expect(machine.isRunning(key: "a"))
    #expect(machine.cancel(key: "a") == "new")
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
}
