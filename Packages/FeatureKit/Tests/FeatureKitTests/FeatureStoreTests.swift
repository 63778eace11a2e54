import FeatureKit
import InMemoryLogging
import Logging
import Observation
import ReduxCore
import ReduxCoreTesting
import Testing

@MainActor
@Suite(.timeLimit(.minutes(1))) struct FeatureStoreTests {
  let gate = Gate()
  let clock = ManualClock()

  func makeLoader(taskManager: TaskManager = TaskManager(), logger: InMemoryLogHandler? = nil)
    -> FeatureStore<Loader>
  {
    FeatureStore(
      initialState: Loader.State(), feature: Loader(gate: gate, clock: clock),
      taskManager: taskManager,
      logger: logger?.logger ?? .init(label: "test"))
  }

  @Test func actionsAreHandledInTheOrderSentAndTheStateChangesBeforeSendReturns() {
    let store = FeatureStore(initialState: Todos.State(), feature: Todos())
    for title in ["Task 1", "Task 2", "Task 3", "Task 4"] { store.send(.add(title)) }
    #expect(store.state.todos.map(\.id) == [1, 2, 3, 4])
    store.send(.complete(1))
    store.send(.complete(2))
    store.send(.delete(3))
    store.send(.delete(999))
    store.send(.complete(999))
    #expect(store.state.todos.map(\.isCompleted) == [true, true, false])
    store.send(.clearCompleted)
    #expect(store.state.todos.map(\.title) == ["Task 4"])
    store.send(.add("Task 5"))
    #expect(store.state.todos.last?.id == 5)  // ids are never reused
    store.send(.toggleAll)
    #expect(store.state.todos.map(\.isCompleted) == [true, true])
    store.send(.toggleAll)
    #expect(store.state.todos.map(\.isCompleted) == [false, false])
  }

  @Test func awaitingSendWaitsForThatActionsOwnTaskOnly() async {
    let store = makeLoader()
    let load = store.send(.load(id: "load"))
    #expect(store.state.isLoading)
    await gate.waitForWaiters(1)
    await store.send(.increment).value  // does not wait for the load
    #expect(store.state.count == 1 && store.runningTaskCount == 1)
    gate.open()
    await load.value
    #expect(store.state.value == 42 && !store.state.isLoading)
    #expect(store.runningTaskCount == 0 && !store.isTaskRunning(id: "load"))
  }

  @Test func aCancelledTaskCannotSend() async {
    let store = makeLoader()
    let load = store.send(.load(id: "load"))
    await gate.waitForWaiters(1)
    #expect(store.isTaskRunning(id: "load"))
    store.send(.stop(id: "load"))
    #expect(!store.isTaskRunning(id: "load"))
    gate.open()
    await load.value
    #expect(store.state.value == nil)
    #expect(store.runningTaskCount == 0)
  }

  @Test func aReplacingTaskStaysTrackedAndCancellable() async {
    let store = makeLoader()
    let first = store.send(.load(id: "load"))
    await gate.waitForWaiters(1)
    let second = store.send(.load(id: "load"))  // replaces the first
    await first.value  // ends before the gate opens: the replacement cancelled it
    #expect(store.isTaskRunning(id: "load"))
    gate.open()
    await second.value
    #expect(store.state.value == 42)

    let third = store.send(.sleep(id: "sleep"))
    let fourth = store.send(.sleep(id: "sleep"))
    await third.value  // cancelled by the replacement: its end must not untrack the new one
    #expect(store.isTaskRunning(id: "sleep"))
    store.cancelTask(id: "sleep")
    await fourth.value
    #expect(store.runningTaskCount == 0)
    #expect(store.state.error == nil)  // cancellation never reaches catch
  }

  @Test func aFailedTaskReachesCatchAndTheLastCatchWins() async {
    let store = makeLoader()
    await store.send(.fail).value
    #expect(store.state.error == "offline")

    let overridden = ActionTask<Loader.Action, Loader.State>.run(id: "x") {
      throw LoadError.offline
    }
    .catch { _, state in state.error = "first" }
    .catch { _, state in state.error = "second" }
    struct Direct: StoreFeature {
      let task: ActionTask<Loader.Action, Loader.State>
      func handle() -> ActionHandler<Loader.Action, Loader.State> { ActionHandler { _, _ in task } }
    }
    let direct = FeatureStore(initialState: Loader.State(), feature: Direct(task: overridden))
    await direct.send(.increment).value
    #expect(direct.state.error == "second")
  }

  @Test func aFailedTaskWithoutCatchIsLogged() async {
    let logs = InMemoryLogHandler()
    let store = makeLoader(logger: logs)
    await store.send(.failUncaught).value
    let errors = logs.messages(at: .error)
    #expect(errors.count == 1)
    #expect(errors.first?.contains("auto-task-") == true)
    #expect(errors.first?.contains("offline") == true)
  }

  @Test func cancelAllTasksAndReleasingTheStoreCancelEverything() async {
    let tasks = TaskManager()
    var store: FeatureStore<Loader>? = makeLoader(taskManager: tasks)
    store?.send(.sleep(id: "a"))
    store?.send(.sleep(id: "b"))
    #expect(store?.runningTaskCount == 2)
    store?.cancelAllTasks()
    // Cancelled: no longer running as the documentation says, even before they unwind.
    #expect(store?.isTaskRunning(id: "a") == false && store?.isTaskRunning(id: "b") == false)
    await tasks.waitUntilIdle()
    #expect(store?.runningTaskCount == 0)

    store?.send(.sleep(id: "c"))
    store = nil
    await tasks.waitUntilIdle()  // returns only because the release cancelled the sleep
    #expect(tasks.runningTaskCount == 0)
  }

  /// A manager shared by two stores: each store cancels only what it started.
  @Test func aStoreOnASharedManagerCancelsOnlyItsOwnTasks() async {
    let tasks = TaskManager()
    var first: FeatureStore<Loader>? = makeLoader(taskManager: tasks)
    let second = makeLoader(taskManager: tasks)
    let cancelled = first?.send(.sleep(id: "first"))
    second.send(.sleep(id: "second"))
    #expect(tasks.runningTaskCount == 2)
    first?.cancelAllTasks()
    #expect(first?.isTaskRunning(id: "first") == false)
    #expect(second.isTaskRunning(id: "second"))
    await cancelled?.value  // ends only because it was cancelled: the clock never moves
    #expect(first?.state.error == nil)  // a cancelled task's CancellationError is not a failure
    #expect(second.isTaskRunning(id: "second") && tasks.runningTaskCount == 1)

    let released = first?.send(.sleep(id: "first again"))
    first = nil
    await released?.value
    #expect(second.isTaskRunning(id: "second") && tasks.runningTaskCount == 1)
    second.cancelAllTasks()
    await tasks.waitUntilIdle()
    #expect(tasks.runningTaskCount == 0)
  }

  @Test func generatedIdsAreUnique() {
    let first = ActionTask<Int, Int>.run { _ in }
    let second = ActionTask<Int, Int>.run { _ in }
    #expect(first.id != second.id)
    #expect("\(first.id!)".hasPrefix("auto-task-"))
    #expect(ActionTask<Int, Int>.cancel(id: 42).kind == .cancel(id: 42))
    let none = ActionTask<Int, Int>.none.catch { _, _ in }
    #expect(none.kind == .none)
  }

  @Test func theViewFeatureNameIsReachable() {
    let store: ViewFeature.Store<Todos> = FeatureStore(
      initialState: Todos.State(), feature: Todos())
    store.send(.add("a"))
    #expect(store.state.todos.count == 1)
  }

  @Test func tasksAreKeyedByAnyHashableSendableId() async {
    enum Job: Hashable, Sendable {
      case sync
      case upload(Int)
    }
    struct Jobs: StoreFeature {
      let clock: ManualClock
      func handle() -> ActionHandler<Job, Int> {
        ActionHandler { [clock] job, _ in .run(id: job) { try await clock.sleep(for: .seconds(1)) }
        }
      }
    }
    let store = FeatureStore(initialState: 0, feature: Jobs(clock: clock))
    store.send(.sync)
    let upload = store.send(.upload(1))
    #expect(store.isTaskRunning(id: Job.upload(1)) && !store.isTaskRunning(id: Job.upload(2)))
    store.cancelTask(id: Job.upload(1))
    await upload.value
    #expect(store.isTaskRunning(id: Job.sync) && store.runningTaskCount == 1)
    store.cancelAllTasks()
  }

  /// What a developer tool records of a feature: every action, those its tasks send included.
  @Test func onActionSeesEveryActionItsTasksSendIncluded() async {
    let store = makeLoader()
    let seen = Reports()
    store.onAction = { seen.append("\($0)") }
    let loading = store.send(.load(id: "a"))
    store.send(.increment)
    gate.open()
    await loading.value
    #expect(seen.all == [#"load(id: "a")"#, "increment", "loaded(42)"])
  }

  @Test func stateChangesAreObservable() {
    let store = FeatureStore(initialState: Todos.State(), feature: Todos())
    let changes = Reports()
    withObservationTracking {
      _ = store.state.todos
    } onChange: {
      changes.append("state")
    }
    store.send(.add("observed"))
    #expect(changes.all == ["state"])
  }

  /// A handled task failure mutates the state through `onError`: observed like a send.
  @Test func aFailedTasksStateChangeIsObservable() async {
    let store = makeLoader()
    let changes = Reports()
    let failing = store.send(.fail)
    withObservationTracking {
      _ = store.state.error
    } onChange: {
      changes.append("state")
    }
    await failing.value
    #expect(store.state.error == "offline" && changes.all == ["state"])
  }

  @Test func aDebouncedTaskRunsOnceTheTypingStopsAndLogsTheSupersededOnes() async {
    let logs = InMemoryLogHandler()
    let store = FeatureStore(
      initialState: Search.State(), feature: Search(), taskManager: TaskManager(clock: clock),
      logger: logs.logger)
    for text in ["s", "sw", "swi"] {
      store.send(.queryChanged(text))
      await clock.advance(by: .milliseconds(100))
    }
    #expect(store.state.results.isEmpty)
    await clock.advance(by: .milliseconds(200))  // 300 ms after "swi"
    await store.waitUntilIdle()
    #expect(store.state.results == ["swi"])
    #expect(
      logs.messages(at: .debug) == [
        "task search did not run: superseded by a newer task with its id",
        "task search did not run: superseded by a newer task with its id",
      ])
  }

  @Test func releasingTheStoreCancelsATaskItsPolicyHolds() async {
    let tasks = TaskManager(clock: clock)
    var store: FeatureStore<Search>? = FeatureStore(
      initialState: Search.State(), feature: Search(), taskManager: tasks)
    store?.send(.queryChanged("s"))
    #expect(tasks.runningTaskCount == 1)  // the debounce's timer
    store = nil
    await tasks.waitUntilIdle()
    #expect(tasks.runningTaskCount == 0)
  }
}
