import ReduxCore
import ReduxCoreTesting
import Synchronization
import Testing

/// TinyRedux's own behaviours that ReduxCore keeps.
@Suite(.timeLimit(.minutes(1))) @MainActor
struct SeedParityTests {
  @Test func previewStateCreatesAStoreWithAnEmptyPipeline() async {
    let store = CounterStore.previewState(TestState(value: 42))
    #expect(store.value == 42)
    let state = await store.dispatchWithResult(.inc)
    #expect(state.value == 42)
  }

  @Test func dynamicMemberLookupReadsTheState() {
    let store = CounterStore.previewState(TestState(value: 99))
    #expect(store.value == 99)
    #expect(store.state.value == 99)
  }

  @Test func multipleReducersAllMutateTheState() async {
    let plusTen = Reduce(id: "+10") { $0.state.value += 10 }
    let plusFive = Reduce(id: "+5") { $0.state.value += 5 }
    let store = CounterStore(initialState: TestState(), reducers: [plusTen, plusFive])
    let state = await store.dispatchWithResult(.run)
    #expect(state.value == 15)
  }

  @Test func statedMiddlewareKeepsItsCoordinatorAcrossDispatches() async {
    final class Counter: Sendable { let count = Mutex(0) }
    let coordinator = Counter()
    let stated = StatedMiddleware<TestState, TestAction>(id: "stated", coordinator: coordinator) {
      counter, context in
      counter.count.withLock { $0 += 1 }
      context.next()
    }
    let store = CounterStore(initialState: TestState(), middlewares: [AnyMiddleware(stated)])
    store.dispatch(.run)
    store.dispatch(.inc)
    await store.waitUntilActionsProcessed()
    #expect(coordinator.count.withLock { $0 } == 2)
  }

  @Test func protocolConformersWrapIntoTheAnyTypes() async {
    struct Doubling: Middleware {
      let id = "doubling"
      func run(_ context: MiddlewareContext<TestState, TestAction>) throws {
        if case .add(let amount) = context.action {
          context.next(.add(amount * 2))
        } else {
          context.next()
        }
      }
    }
    struct Adding: Reducer {
      let id = "adding"
      let reduce: @MainActor @Sendable (ReducerContext<TestState, TestAction>) -> Void = {
        context in
        if case .add(let amount) = context.action { context.state.value += amount }
      }
    }
    struct Ignoring: Resolver {
      let id = "ignoring"
      func run(_ context: ResolverContext<TestState, TestAction>) {}
    }
    let store = CounterStore(
      initialState: TestState(), middlewares: [AnyMiddleware(Doubling())],
      resolvers: [AnyResolver(Ignoring())], reducers: [AnyReducer(Adding())])
    let state = await store.dispatchWithResult(.add(4))
    #expect(state.value == 8)
  }

  @Test func actionRecorderSeesActionsInProcessingOrder() async {
    let recorder = ActionRecorder<TestState, TestAction>()
    let store = CounterStore(
      initialState: TestState(), middlewares: [recorder.middleware], reducers: [counter])
    store.dispatch(.inc)
    store.dispatch(.add(2))
    await store.waitUntilActionsProcessed()
    #expect(recorder.actions == [.inc, .add(2)])
    #expect(store.value == 3)
  }
}
