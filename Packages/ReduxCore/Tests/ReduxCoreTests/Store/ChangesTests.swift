import ReduxCore
import ReduxCoreTesting
import Testing

@Suite(.timeLimit(.minutes(1))) @MainActor
struct ChangesTests {
  @Test func streamStartsWithTheCurrentValue() async {
    let store = CounterStore(initialState: TestState(value: 7), reducers: [counter])
    var iterator = store.changes(of: \.value).makeAsyncIterator()
    #expect(await iterator.next() == 7)
  }

  @Test func aBatchOfActionsEmitsOnce() async {
    let store = CounterStore(initialState: TestState(), reducers: [counter])
    var iterator = store.changes(of: \.value).makeAsyncIterator()
    #expect(await iterator.next() == 0)
    for _ in 0..<10 { store.dispatch(.inc) }
    #expect(await iterator.next() == 10)
    store.dispatch(.inc)
    #expect(await iterator.next() == 11)
  }

  @Test func equalValuesAreSkipped() async {
    let store = CounterStore(initialState: TestState(), reducers: [counter])
    var iterator = store.changes(of: \.value).makeAsyncIterator()
    #expect(await iterator.next() == 0)
    await store.dispatchWithResult(.set(0))
    await store.dispatchWithResult(.note("unrelated"))
    store.dispatch(.set(4))
    #expect(await iterator.next() == 4)
  }

  @Test func selectionCanDeriveAValue() async {
    let store = CounterStore(initialState: TestState(), reducers: [counter])
    var iterator = store.changes(of: { $0.value.isMultiple(of: 2) ? "even" : "odd" })
      .makeAsyncIterator()
    #expect(await iterator.next() == "even")
    store.dispatch(.inc)
    #expect(await iterator.next() == "odd")
    await store.dispatchWithResult(.add(2))
    store.dispatch(.inc)
    #expect(await iterator.next() == "even")
  }

  /// A state no view observes (a server's, a command-line tool's) may leave `@Observable` out,
  /// sparing every mutation the registrar's calls: the store's streams compare selected values
  /// after each batch and need no registrar.
  @Test func aStateWithoutObservableStillStreamsItsChanges() async {
    let store = Store<UnobservedState, TestAction>(
      initialState: UnobservedState(),
      reducers: [
        AnyReducer(id: "counter") { context in
          if case .add(let amount) = context.action { context.state.value += amount }
        }
      ])
    var iterator = store.changes(of: \.value).makeAsyncIterator()
    #expect(await iterator.next() == 0)
    store.dispatch(.add(1))
    store.dispatch(.add(2))
    #expect(await iterator.next() == 3)
    #expect(await store.dispatchWithResult(.add(4)).value == 7)
    #expect(store.value == 7)
  }
}

/// A state without `@Observable`: `Observable` is the marker `ReduxState` asks for.
@MainActor
final class UnobservedState: ReduxState {
  var value = 0
}
