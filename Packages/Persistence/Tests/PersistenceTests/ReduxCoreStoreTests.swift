import EntityTracking
import Observation
import Persistence
import ReduxCore
import ReduxCoreTesting
import Testing

@MainActor
@Observable
final class TodoState: ReduxState {
  var items = EntityStore<Item>()
  var readOnly: ReadOnly { ReadOnly(self) }

  @MainActor
  @Observable
  final class ReadOnly: ReduxReadOnlyState {
    private let state: TodoState
    init(_ state: TodoState) { self.state = state }
    var items: EntityStore<Item> { state.items }
  }
}

enum TodoAction: ReduxAction {
  case add(Int, String)
  case rename(Int, String)
  case remove(Int)

  var id: String {
    switch self {
    case .add: "add"
    case .rename: "rename"
    case .remove: "remove"
    }
  }
}

/// Persistence plugged into a ReduxCore `Store` with one line: feature code has no save calls.
@MainActor
@Suite struct ReduxCoreStoreTests {
  @Test func aStoreWithThePersistenceReducerPersistsItsEntityStores() async throws {
    let recorder = PersistRecorder()
    let persistence = PersistenceMiddleware<TodoState>(
      writers: [
        StateWriter(keyPath: \.items, persist: recorder.persist("items") { "\($0.id)=\($0.name)" })
      ], clock: ManualClock())  // NB: the debounce never fires; the four changes meet in one flush
    let todos = AnyReducer<TodoState, TodoAction>(id: "todos") { context in
      let (state, action) = context.args
      switch action {
      case .add(let id, let name): state.items.upsert(Item(id: id, name: name))
      case .rename(let id, let name): state.items.modify(id) { $0.name = name }
      case .remove(let id): state.items.remove(id)
      }
    }
    let logs = LogRecorder<TodoState, TodoAction>()
    let store = Store(
      initialState: TodoState(), reducers: [todos, persistence.reducer()], onLog: logs.onLog)

    await store.dispatchWithResult(.add(1, "milk"))
    await store.dispatchWithResult(.add(2, "eggs"))
    await store.dispatchWithResult(.rename(1, "oat milk"))
    await store.dispatchWithResult(.remove(2))
    #expect(persistence.status.pendingCount == 2)
    #expect(!store.items.hasChanges)
    // Timed like the app's reducers: a slow drain shows up in the timing logs.
    #expect(logs.reducerEntries.filter { $0.id == "persistence" }.count == 4)

    try await persistence.shutdown()
    #expect(recorder.calls == [.init(writer: "items", writes: ["1=oat milk"], deletions: ["2"])])
    store.shutdown()
  }
}
