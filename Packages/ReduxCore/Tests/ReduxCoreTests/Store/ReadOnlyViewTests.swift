import Observation
import ReduxCore
import ReduxCoreTesting
import Testing

/// A state that declares nothing but its properties: its projection is a ReadOnlyView.
@MainActor
@Observable
final class PlainState: ReduxState {
  var count = 0
  var items: [String] = []
}

enum PlainAction: ReduxAction {
  case add(String)

  var id: String { "add" }
}

@MainActor
@Suite(.timeLimit(.minutes(1))) struct ReadOnlyViewTests {
  let reducer = AnyReducer<PlainState, PlainAction>(id: "plain") { context in
    let (state, action) = context.args
    switch action {
    case .add(let item):
      state.items.append(item)
      state.count += 1
    }
  }

  @Test func aStateWithNoProjectionOfItsOwnIsReadThroughTheDefaultView() async {
    let seen = Trace()
    let watcher = AnyMiddleware<PlainState, PlainAction>(id: "watcher") { context in
      context.next()
      context.task { state in seen.append("\(state.count): \(state.items)") }
    }
    let store = Store(initialState: PlainState(), middlewares: [watcher], reducers: [reducer])
    await store.dispatchWithResult(.add("a"))
    await store.waitUntilIdle()
    #expect(store.count == 1 && store.items == ["a"])
    #expect(seen.all == [#"1: ["a"]"#])
  }

  @Test func readsThroughTheViewAreObserved() async {
    let store = Store(initialState: PlainState(), reducers: [reducer])
    let changes = Trace()
    withObservationTracking {
      _ = store.state.items
    } onChange: {
      changes.append("items")
    }
    await store.dispatchWithResult(.add("b"))
    #expect(changes.all == ["items"])
  }
}
