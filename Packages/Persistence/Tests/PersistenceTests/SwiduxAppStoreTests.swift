import EntityTracking
import Observation
import Persistence
import ReduxCore
import ReduxCoreTesting
import Testing

// The seed's hand-written store, as an app writes it: the specialisations, a root reducer
// delegating to a feature reducer, and the snapshot pattern in `send`.

typealias Send = ReduxCore.Send<ShopAction>
typealias Effect = ReduxCore.Effect<ShopAction>

struct ShopState {
  var items = EntityStore<Item>()
  var tags = EntityStore<Tag>()
  var isLoading = false
}

enum ShopAction: Sendable {
  case items(ItemAction)
}

enum ItemAction: Sendable {
  case create(Int, String)
  case load
  case loaded([Item])
}

struct Catalog: Sendable {
  var items: @Sendable () async -> [Item]
}

struct ShopEnvironment {
  var catalog: Catalog
}

struct ItemReducer: SwiduxReducer {
  func reduce(state: inout ShopState, action: ItemAction, environment: ShopEnvironment) -> Effect? {
    switch action {
    case .create(let id, let name):
      state.items.upsert(Item(id: id, name: name))
      return nil
    case .load:
      state.isLoading = true
      let catalog = environment.catalog
      return { send in
        let items = await catalog.items()
        await send(.items(.loaded(items)))
      }
    case .loaded(let items):
      state.isLoading = false
      state.items.upsert(contentsOf: items)
      return nil
    }
  }
}

struct ShopReducer: SwiduxReducer {
  let items = ItemReducer()

  func reduce(state: inout ShopState, action: ShopAction, environment: ShopEnvironment) -> Effect? {
    switch action {
    case .items(let action): items.reduce(state: &state, action: action, environment: environment)
    }
  }
}

@MainActor
@Observable
final class ShopStore: SwiduxDispatcher {
  private(set) var items = EntityStore<Item>()
  private(set) var tags = EntityStore<Tag>()
  private(set) var isLoading = false
  /// Runs the effects; they are cancelled with the store.
  @ObservationIgnored let tasks = TaskManager()

  @ObservationIgnored private let reducer = ShopReducer()
  @ObservationIgnored private let environment: ShopEnvironment
  @ObservationIgnored let persistence: PersistenceMiddleware<ShopState>

  init(environment: ShopEnvironment, writers: [StateWriter<ShopState>]) {
    self.environment = environment
    // NB: a manual clock never fires the debounce: the test flushes when it decides to.
    self.persistence = PersistenceMiddleware(writers: writers, clock: ManualClock())
  }

  func send(_ action: ShopAction) {
    var state = ShopState(items: items, tags: tags, isLoading: isLoading)
    let effect = reducer.reduce(state: &state, action: action, environment: environment)
    persistence.afterReduce(state: &state)
    items = state.items
    tags = state.tags
    isLoading = state.isLoading
    if let effect { tasks.run(effect, send: Send { [weak self] in self?.send($0) }) }
  }
}

@MainActor
@Suite struct SwiduxAppStoreTests {
  @Test func aHandWrittenSeedStoreReducesRunsEffectsAndPersists() async throws {
    let recorder = PersistRecorder()
    let catalog = Catalog { [Item(id: 10, name: "from catalog"), Item(id: 11, name: "also")] }
    let store = ShopStore(
      environment: ShopEnvironment(catalog: catalog),
      writers: [
        StateWriter(keyPath: \.tags, persist: recorder.persist("tags") { $0.id }),
        StateWriter(keyPath: \.items, persist: recorder.persist("items") { "\($0.id)=\($0.name)" }),
      ])

    store.send(.items(.create(1, "typed")))
    store.send(.items(.load))
    #expect(store.isLoading)
    await store.tasks.waitUntilIdle()
    #expect(!store.isLoading)
    #expect(store.items.ids == [1, 10, 11])
    #expect(!store.items.hasChanges)

    try await store.persistence.shutdown()
    #expect(
      recorder.calls == [
        .init(writer: "items", writes: ["1=typed", "10=from catalog", "11=also"], deletions: [])
      ])
  }

  @Test func anEffectUnderAPolicyRunsWhenAdmittedAndTheOnesSupersededAreTold() async {
    let clock = ManualClock()
    let tasks = TaskManager(clock: clock)
    let sent = CallRecorder<String>()
    let refusals = CallRecorder<TaskRefusal>()
    let send = Send { action in
      if case .items(.create(_, let name)) = action { sent.record(name) }
    }
    for name in ["s", "sh", "sho"] {
      let effect: Effect = { send in await send(.items(.create(1, name))) }
      tasks.run(effect, send: send, id: "search", policy: .debounce(.milliseconds(100))) {
        refusals.record($0)
      }
      await clock.advance(by: .milliseconds(50))
    }
    await clock.advance(by: .milliseconds(50))  // 100 after "sho"
    await tasks.waitUntilIdle()
    #expect(sent.calls == ["sho"])
    #expect(refusals.calls == [.superseded, .superseded])
  }
}
