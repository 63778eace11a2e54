import ReduxCore
import ReduxCoreTesting
import Testing

/// Tasks under admission policies, end to end through a `TaskManager` on a `ManualClock`.
@Suite(.timeLimit(.minutes(1))) @MainActor
struct TaskAdmissionTests {
  let clock = ManualClock()
  let tasks: TaskManager
  /// The tasks that ran, by name, in the order they started.
  let ran = CallRecorder<String>()
  /// The tasks refused, by name, with why.
  let refused = CallRecorder<Refused>()

  struct Refused: Equatable, Sendable {
    let name: String
    let refusal: TaskRefusal
  }

  init() {
    tasks = TaskManager(clock: clock)
  }

  /// Runs a task named `name` under `policy` with the id "search"; it records that it ran, then
  /// waits on `gate` when one is given.
  @discardableResult
  func run(_ name: String, _ policy: AdmissionPolicy, gate: Gate? = nil) -> TaskAdmission {
    // NB: no capture lists: a closure with one is not inferred to the main actor (Swift 6.3).
    tasks.run(id: "search", policy: policy) {
      MainActor.assertIsolated()
      ran.record(name)
      try await gate?.wait()
    } onFailure: { error in
      Issue.record("\(name) failed: \(error)")
    } onRefusal: { refusal in
      MainActor.assertIsolated()
      refused.record(Refused(name: name, refusal: refusal))
    }
  }

  func isHeld(_ admission: TaskAdmission) -> Bool {
    if case .held = admission { true } else { false }
  }

  @Test func latestCancelsTheRunningTaskAndRunsTheNewOne() async {
    let first = Gate()
    let old = run("a", .latest, gate: first).task
    await ran.waitForCalls(1)
    let new = run("ab", .latest).task
    await old?.value  // cancelled while waiting on its gate
    await new?.value
    #expect(ran.calls == ["a", "ab"])
    #expect(refused.calls.isEmpty)
    #expect(first.waiterCount == 0)
  }

  @Test func limitRefusesBeyondNAndAdmitsAgainOnceOneEnds() async {
    let gate = Gate()
    run("a", .limit(2), gate: gate)
    run("b", .limit(2), gate: gate)
    let third = run("c", .limit(2))
    #expect({ if case .refused(.limited(2)) = third { true } else { false } }())
    await refused.waitForCalls(1)
    #expect(refused.calls == [Refused(name: "c", refusal: .limited(2))])
    #expect(tasks.isTaskRunning(id: "search"))
    gate.open()
    await tasks.waitUntilIdle()
    await run("d", .limit(2)).task?.value
    #expect(Set(ran.calls) == ["a", "b", "d"])
  }

  @Test func aPlainRunReplacesEveryTaskSharingItsIDUnderALimit() async {
    let gate = Gate()
    let first = run("a", .limit(0), gate: gate).task
    let second = run("b", .limit(0), gate: gate).task
    await gate.waitForWaiters(2)
    await run("c", .latest).task?.value
    await first?.value
    await second?.value
    #expect(ran.calls == ["a", "b", "c"])
    #expect(gate.waiterCount == 0)
  }

  @Test func debounceRunsTheLastAfterQuietAndRefusesTheOthersAsSuperseded() async {
    let policy = AdmissionPolicy.debounce(.milliseconds(100))
    #expect(isHeld(run("s", policy)))
    await clock.advance(by: .milliseconds(60))
    #expect(isHeld(run("sw", policy)))
    await refused.waitForCalls(1)
    #expect(refused.calls == [Refused(name: "s", refusal: .superseded)])
    await clock.advance(by: .milliseconds(60))  // 120: 100 after "s", 60 after "sw"
    #expect(ran.calls.isEmpty)
    await clock.advance(by: .milliseconds(40))  // 160: 100 after "sw"
    await ran.waitForCalls(1)
    await tasks.waitUntilIdle()
    #expect(ran.calls == ["sw"])
  }

  @Test func debounceMaxWaitLetsASteadyStreamThrough() async {
    let policy = AdmissionPolicy.debounce(.milliseconds(100), maxWait: .milliseconds(250))
    for step in 0..<5 {  // one every 60 ms: never 100 ms of quiet
      run("q\(step)", policy)
      await clock.advance(by: .milliseconds(60))
    }
    // 300: the run held at 240 went at 250, the first's maxWait; the one at 0..180 superseded.
    await ran.waitForCalls(1)
    await tasks.waitUntilIdle()
    #expect(ran.calls == ["q4"])
    await refused.waitForCalls(4)
    #expect(refused.calls.map(\.name) == ["q0", "q1", "q2", "q3"])
  }

  @Test func throttleRunsTheLeadingAndTheTrailingOneOfAnInterval() async {
    let policy = AdmissionPolicy.throttle(.milliseconds(100))
    await run("a", policy).task?.value
    await clock.advance(by: .milliseconds(10))
    #expect(isHeld(run("b", policy)))
    await clock.advance(by: .milliseconds(10))
    #expect(isHeld(run("c", policy)))
    await refused.waitForCalls(1)
    #expect(refused.calls == [Refused(name: "b", refusal: .superseded)])
    await clock.advance(by: .milliseconds(80))  // 100: the window ends, "c" goes
    await ran.waitForCalls(2)
    await tasks.waitUntilIdle()
    #expect(ran.calls == ["a", "c"])
  }

  @Test func throttleWithoutTrailingRefusesWithinTheInterval() async {
    let policy = AdmissionPolicy.throttle(.milliseconds(100), trailing: false)
    await run("a", policy).task?.value
    await clock.advance(by: .milliseconds(50))
    let second = run("b", policy)
    #expect({ if case .refused(.throttled(.milliseconds(100))) = second { true } else { false } }())
    await clock.advance(by: .milliseconds(50))
    await run("c", policy).task?.value
    #expect(ran.calls == ["a", "c"])
    await refused.waitForCalls(1)
    #expect(
      refused.calls == [Refused(name: "b", refusal: .throttled(interval: .milliseconds(100)))])
  }

  @Test func aReleasedTaskReplacesTheRunningOneWithItsID() async {
    let gate = Gate()
    let policy = AdmissionPolicy.debounce(.milliseconds(100))
    run("a", policy, gate: gate)
    await clock.advance(by: .milliseconds(100))
    await gate.waitForWaiters(1)
    run("b", policy)
    await clock.advance(by: .milliseconds(100))
    await ran.waitForCalls(2)
    await tasks.waitUntilIdle()
    #expect(ran.calls == ["a", "b"])
    #expect(gate.waiterCount == 0)  // "a" was cancelled by "b"
  }

  @Test func cancellingTheIDRefusesTheHeldTaskAndStopsItsTimer() async {
    run("a", .debounce(.milliseconds(100)))
    #expect(tasks.runningTaskCount == 1)  // the timer
    tasks.cancelTask(id: "search")
    await refused.waitForCalls(1)
    #expect(refused.calls == [Refused(name: "a", refusal: .cancelled)])
    await tasks.waitUntilIdle()
    await clock.advance(by: .milliseconds(200))
    #expect(ran.calls.isEmpty)
    #expect(tasks.runningTaskCount == 0)
  }

  @Test func shutdownRefusesHeldAndNewTasks() async {
    run("a", .throttle(.milliseconds(100), leading: false))
    tasks.shutdown()
    let late = run("b", .latest)
    #expect({ if case .refused(.shutdown) = late { true } else { false } }())
    await refused.waitForCalls(2)
    #expect(Set(refused.calls.map(\.refusal)) == [.shutdown])
    #expect(Set(refused.calls.map(\.name)) == ["a", "b"])
    await tasks.waitUntilIdle()
    #expect(ran.calls.isEmpty)
  }

  @Test func aTaskWithoutAPolicyStillReplacesByID() async {
    let gate = Gate()
    let old = tasks.run(id: "search") {
      try await gate.wait()
    } onFailure: { _ in
    }
    await gate.waitForWaiters(1)
    await run("b", .limit(0)).task?.value  // shares the id: the old one goes on
    #expect(gate.waiterCount == 1)
    await tasks.run(id: "search") {
    } onFailure: { _ in
    }?.value
    await old?.value
    #expect(gate.waiterCount == 0)
  }
}
