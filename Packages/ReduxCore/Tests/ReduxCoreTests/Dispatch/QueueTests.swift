import ReduxCore
import ReduxCoreTesting
import Testing

@Suite(.timeLimit(.minutes(1))) @MainActor
struct QueueTests {
  @Test func defaultCapacityIs256() async {
    let logs = Logs()
    let store = CounterStore(initialState: TestState(), reducers: [counter], onLog: logs.onLog)
    let accepted = (0..<300).filter { _ in store.dispatch(.inc) { _ in } }.count
    await store.waitUntilActionsProcessed()
    #expect(accepted == 256)
    #expect(store.value == 256)
    #expect(logs.events.count == 44)
  }

  /// Without an `onLog`, a fire-and-forget refusal still reaches the caller and the store.
  @Test func fireAndForgetRefusalsAreReturnedAndCounted() async {
    let store = CounterStore(initialState: TestState(), reducers: [counter], queueCapacity: 2)
    let accepted = (0..<5).map { _ in store.dispatch(.inc) }
    #expect(accepted == [true, true, false, false, false])
    #expect(store.refusedDispatchCount == 3)
    store.dispatch(maxDispatchable: 1, .inc)
    #expect(store.refusedDispatchCount == 4)
    await store.waitUntilActionsProcessed()
    #expect(store.value == 2)
  }

  /// A capacity that would admit nothing does not trap the app: it is 1, and the store says so.
  @Test(arguments: [0, -3])
  func aCapacityBelowOneIsOneAndIsReported(capacity: Int) async {
    let logs = Logs()
    let store = CounterStore(
      initialState: TestState(), reducers: [counter], queueCapacity: capacity, onLog: logs.onLog)
    #expect(
      logs.events.map(\.description) == [
        "Store: queueCapacity \(capacity) admits nothing; using 1"
      ])
    #expect(store.dispatch(.inc) && !store.dispatch(.inc))
    await store.waitUntilActionsProcessed()
    #expect(store.value == 1)
  }

  @Test func fullQueueRefusesWithATypedReason() async {
    let store = CounterStore(initialState: TestState(), reducers: [counter], queueCapacity: 2)
    store.dispatch(.inc)
    store.dispatch(.inc)
    #expect(throws: DispatchError.queueFull(capacity: 2)) { try store.tryDispatch(.inc) }
    await #expect(throws: DispatchError.queueFull(capacity: 2)) {
      try await store.tryDispatchWithResult(.inc)
    }
    await store.waitUntilActionsProcessed()
    #expect(store.value == 2)
  }

  @Test func capacityFreesAsBatchesAreTaken() async throws {
    let store = CounterStore(initialState: TestState(), reducers: [counter], queueCapacity: 2)
    for _ in 0..<5 {
      try store.tryDispatch(.inc)
      try store.tryDispatch(.inc)
      await store.waitUntilActionsProcessed()
    }
    #expect(store.value == 10)
  }

  @Test func actionsDispatchedWhileProcessingCountAgainstTheCapacity() async {
    let logs = Logs()
    let fanOut = Middle(id: "fan-out") { context in
      if context.action == .run { context.dispatch(0, .inc, .inc, .inc) }
      context.next()
    }
    let store = CounterStore(
      initialState: TestState(), middlewares: [fanOut], reducers: [counter], queueCapacity: 2,
      onLog: logs.onLog)
    await store.dispatchWithResult(.run)
    await store.waitUntilActionsProcessed()
    #expect(store.value == 2)
    #expect(
      logs.events.map(\.description) == ["refused 'inc': queue full: 2 actions already pending"])
  }
}
