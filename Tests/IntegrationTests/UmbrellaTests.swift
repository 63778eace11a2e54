import ReduxKit
import Testing

/// `import ReduxKit` alone reaches every module.
@Suite struct UmbrellaTests {
  struct Note: Identifiable, Equatable, Sendable {
    let id: Int
    var text: String
  }

  @Test func queryCacheIsReexported() async throws {
    let client = QueryClient()
    let result = await client.fetch(queryKey: ["note", 1]) { Note(id: 1, text: "cached") }
    #expect(try result.result.get() == Note(id: 1, text: "cached"))
  }

  @Test func entityTrackingIsReexported() {
    var notes = EntityStore<Note>()
    notes[1] = Note(id: 1, text: "hello")
    #expect(notes.drainChanges().upserts == [1])
  }

  struct Tally: StoreFeature {
    enum Action: Sendable { case add(Int) }
    func handle() -> ActionHandler<Action, Int> {
      ActionHandler { action, total in
        if case .add(let amount) = action { total += amount }
        return .none
      }
    }
  }

  /// FeatureKit's names sit beside ReduxCore's `Store`, `Reducer` and `Send` without a clash.
  @MainActor @Test func featureKitIsReexportedWithoutNameClashes() {
    let store = FeatureStore(initialState: 0, feature: Tally())
    store.send(.add(2))
    let seedName: ViewFeature.Store<Tally> = store
    #expect(seedName.state == 2)
  }
}
