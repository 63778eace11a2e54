import ReduxCore
import ReduxCoreTesting
import Testing

/// Actions that spell out no `id`: the case name is derived.
enum DerivedAction: ReduxAction {
  case increment
  case add(Int)
  case loaded(items: [Int])
}

struct StructAction: ReduxAction {
  var amount: Int
}

@MainActor
@Suite(.timeLimit(.minutes(1))) struct DerivedActionIDTests {
  @Test func anEnumActionsIdIsItsCaseName() {
    #expect(DerivedAction.increment.id == "increment")
    #expect(DerivedAction.add(3).id == "add")
    #expect(DerivedAction.loaded(items: Array(repeating: 7, count: 100_000)).id == "loaded")
    #expect(StructAction(amount: 1).id == "StructAction")
  }

  /// `.add(1)` and `.add(2)` share one budget: the limit counts the case, not the payload.
  @Test func rateLimitingCountsTheDerivedCaseName() async {
    let reducer = AnyReducer<PlainState, DerivedAction>(id: "count") { context in
      context.state.count += 1
    }
    let store = Store(initialState: PlainState(), reducers: [reducer])
    #expect(store.dispatch(maxDispatchable: 1, .add(1)))
    #expect(!store.dispatch(maxDispatchable: 1, .add(2)))
    #expect(store.dispatch(maxDispatchable: 1, .increment))
    await store.waitUntilActionsProcessed()
    #expect(store.count == 2)
  }
}
