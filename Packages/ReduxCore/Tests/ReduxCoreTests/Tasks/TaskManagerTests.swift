import ReduxCore
import ReduxCoreTesting
import Testing

@Suite(.timeLimit(.minutes(1))) @MainActor
struct TaskManagerTests {
  @Test func runsATaskAndCountsItUntilItEnds() async {
    let tasks = TaskManager()
    let gate = Gate()
    let task = tasks.run(id: "load") {
      try await gate.wait()
    } onFailure: { _ in
    }
    #expect(tasks.runningTaskCount == 1)
    #expect(tasks.isTaskRunning(id: "load"))
    gate.open()
    await task?.value
    #expect(tasks.runningTaskCount == 0)
    #expect(!tasks.isTaskRunning(id: "load"))
  }

  @Test func taskRunsOnTheCallersActor() async {
    let tasks = TaskManager()
    let onMain = Trace()
    await tasks.run {
      MainActor.assertIsolated()
      onMain.append("main")
    } onFailure: { _ in
    }?.value
    #expect(onMain.all == ["main"])
  }

  @Test func tasksStartInTheOrderTheyWereRun() async {
    let tasks = TaskManager()
    let order = Trace()
    for index in 0..<20 {
      tasks.run {
        order.append("\(index)")
      } onFailure: { _ in
      }
    }
    await tasks.waitUntilIdle()
    #expect(order.all == (0..<20).map(String.init))
  }

  @Test func cancelByIDCancelsThatTaskOnly() async {
    let tasks = TaskManager()
    let outcomes = Trace()
    let keep = Gate()
    let cancelled = tasks.run(id: 1) {
      do { try await Gate().wait() } catch {
        outcomes.append("1 cancelled")
        throw error
      }
    } onFailure: { error in
      outcomes.append("1 failed: \(error)")
    }
    let kept = tasks.run(id: 2) {
      try await keep.wait()
      outcomes.append("2 done")
    } onFailure: { _ in
    }
    tasks.cancelTask(id: 1)
    #expect(!tasks.isTaskRunning(id: 1))
    #expect(tasks.isTaskRunning(id: 2))
    await cancelled?.value
    keep.open()
    await kept?.value
    #expect(outcomes.all == ["1 cancelled", "2 done"])
  }

  @Test func newTaskUnderALiveIDReplacesTheOldOneAndStaysTracked() async {
    let tasks = TaskManager()
    let outcomes = Trace()
    let second = Gate()
    let old = tasks.run(id: "search") {
      do { try await Gate().wait() } catch {
        outcomes.append("old cancelled")
        throw error
      }
    } onFailure: { _ in
    }
    let new = tasks.run(id: "search") {
      do { try await second.wait() } catch {
        outcomes.append("new cancelled")
        throw error
      }
    } onFailure: { _ in
    }
    await old?.value
    // The old task has unwound; the replacement must still be tracked under the id.
    #expect(outcomes.all == ["old cancelled"])
    #expect(tasks.isTaskRunning(id: "search"))
    #expect(tasks.runningTaskCount == 1)
    tasks.cancelTask(id: "search")
    await new?.value
    #expect(outcomes.all == ["old cancelled", "new cancelled"])
    #expect(tasks.runningTaskCount == 0)
  }

  @Test func cancellationIsNotAFailureButOtherErrorsAre() async {
    let tasks = TaskManager()
    let failures = Trace()
    let cancelled = tasks.run(id: "a") {
      try await Gate().wait()
    } onFailure: {
      failures.append("a: \($0)")
    }
    tasks.cancelTask(id: "a")
    await cancelled?.value
    await tasks.run(id: "b") {
      throw TestError(code: 9)
    } onFailure: {
      failures.append("b: \($0)")
    }?.value
    #expect(failures.all == ["b: TestError(code: 9)"])
  }

  @Test func cancellationErrorFromATaskNobodyCancelledIsAFailure() async {
    let tasks = TaskManager()
    let failures = Trace()
    await tasks.run {
      throw CancellationError()
    } onFailure: {
      failures.append("\($0)")
    }?.value
    #expect(failures.all == ["CancellationError()"])
  }

  @Test func cancelAllCancelsEveryTaskButNewOnesStillRun() async {
    let tasks = TaskManager()
    for id in 0..<5 {
      tasks.run(id: id) {
        try await Gate().wait()
      } onFailure: { _ in
      }
    }
    tasks.run {
      try await Gate().wait()
    } onFailure: { _ in
    }
    tasks.cancelAllTasks()
    await tasks.waitUntilIdle()
    #expect(tasks.runningTaskCount == 0)
    let ran = Trace()
    await tasks.run {
      ran.append("ran")
    } onFailure: { _ in
    }?.value
    #expect(ran.all == ["ran"])
  }

  @Test func shutdownCancelsEverythingAndRefusesNewTasks() async {
    let tasks = TaskManager()
    tasks.run(id: "x") {
      try await Gate().wait()
    } onFailure: { _ in
    }
    tasks.shutdown()
    let ran = Trace()
    let refused = tasks.run {
      ran.append("ran")
    } onFailure: { _ in
    }
    #expect(refused == nil)
    await tasks.waitUntilIdle()
    #expect(ran.all.isEmpty)
    #expect(tasks.isShutdown)
  }

  @Test func waitUntilIdleReturnsAtOnceWhenNothingRuns() async {
    let tasks = TaskManager()
    await tasks.waitUntilIdle()  // a hang fails the suite's time limit
    #expect(tasks.runningTaskCount == 0)
    #expect(!tasks.isShutdown)
  }
}
