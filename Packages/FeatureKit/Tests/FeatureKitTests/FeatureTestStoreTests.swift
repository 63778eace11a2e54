import FeatureKit
import FeatureKitTesting
import Observation
import ReduxCoreTesting
import Testing

/// A feature whose state is an `@Observable` class, as ViewFeature's docs recommend.
struct Profile: StoreFeature {
  @Observable final class State: CopyableState, Equatable, CustomStringConvertible {
    var name = ""
    var visits = 0

    func copy() -> State {
      let copy = State()
      copy.name = name
      copy.visits = visits
      return copy
    }

    static func == (lhs: State, rhs: State) -> Bool {
      lhs.name == rhs.name && lhs.visits == rhs.visits
    }
    var description: String { "State(name: \(name), visits: \(visits))" }
  }

  enum Action: Sendable {
    case rename(String)
    case visit
  }

  func handle() -> ActionHandler<Action, State> {
    ActionHandler { action, state in
      switch action {
      case .rename(let name): state.name = name
      case .visit: state.visits += 1
      }
      return .none
    }
  }
}

/// The same feature with a class state that cannot copy itself.
struct Opaque: StoreFeature {
  final class State: Equatable {
    var count = 0
    static func == (lhs: State, rhs: State) -> Bool { lhs.count == rhs.count }
  }

  enum Action: Sendable { case increment }

  func handle() -> ActionHandler<Action, State> {
    ActionHandler { _, state in
      state.count += 1
      return .none
    }
  }
}

@MainActor
@Suite(.timeLimit(.minutes(1))) struct FeatureTestStoreTests {
  let failures = FailureRecorder()
  let gate = Gate()
  let clock = ManualClock()

  @Test func expectationsPassOnTheRightStateAndHistoryRecordsEveryAction() async {
    let store = FeatureTestStore(initialState: Todos.State(), feature: Todos())
    await store.send(.add("Buy milk")) {
      $0.todos = [Todos.Todo(id: 1, title: "Buy milk")]
      $0.nextId = 2
    }
    await store.send(.add("Walk"), \.nextId, 3)
    await store.send(.complete(1), expecting: \.todos.first?.isCompleted, toBe: true)
    let state = await store.send(.delete(2), assert: { #expect($0.todos.count == 1) })
    #expect(state.todos.map(\.title) == ["Buy milk"])
    #expect(store.actionHistory.count == 4)
  }

  @Test func aWrongExpectationFailsForAValueState() async {
    let store = FeatureTestStore(
      initialState: Todos.State(), feature: Todos(), assertionProvider: failures)
    await store.send(.add("a")) { $0.nextId = 2 }  // forgot the todo
    await store.send(.add("b"), \.nextId, 99)
    #expect(failures.messages.count == 2)
    #expect(failures.messages.first?.hasPrefix("State mismatch after add(\"a\")") == true)
    #expect(failures.messages.last?.contains("Property mismatch") == true)
  }

  /// A mismatch shows as the lines that differ, not as two whole states to compare by eye.
  @Test func aStateMismatchIsShownAsADiffOfTheLinesThatDiffer() async {
    let store = FeatureTestStore(
      initialState: Todos.State(), feature: Todos(), assertionProvider: failures)
    await store.send(.add("first")) {
      $0.todos.append(Todos.Todo(id: 1, title: "first"))
      $0.nextId = 2
    }
    await store.send(.add("second")) {
      $0.todos.append(Todos.Todo(id: 2, title: "second!"))
      $0.nextId = 3
    }
    let lines = failures.messages.first?.split(separator: "\n").map(String.init) ?? []
    #expect(lines.first == "State mismatch after add(\"second\"): (- expected, + actual)")
    let removed = lines.filter { $0.hasPrefix("-") }
    let inserted = lines.dropFirst().filter { $0.hasPrefix("+") }
    #expect(removed.count == 1 && removed.first?.hasSuffix("title: \"second!\",") == true)
    #expect(inserted.count == 1 && inserted.first?.hasSuffix("title: \"second\",") == true)
  }

  @Test func aWrongExpectationFailsForAClassState() async {
    let store = FeatureTestStore(
      initialState: Profile.State(), feature: Profile(), assertionProvider: failures)
    await store.send(.rename("Ada")) { $0.name = "Ada" }
    #expect(failures.messages.isEmpty)
    await store.send(.visit) { $0.name = "Ada" }  // forgot the visit
    #expect(failures.messages.count == 1)
    #expect(failures.messages.first?.contains("visits: 1") == true)
  }

  @Test func aClassStateThatCannotBeCopiedIsReportedNotPassed() async {
    let store = FeatureTestStore(
      initialState: Opaque.State(), feature: Opaque(), assertionProvider: failures)
    await store.send(.increment) { $0.count = 1 }
    #expect(failures.messages.count == 1)
    #expect(failures.messages.first?.contains("CopyableState") == true)
    #expect(store.state.count == 1)  // the action still ran
  }

  @Test func runTasksRunAndTheirActionsAreRecorded() async {
    let store = FeatureTestStore(
      initialState: Loader.State(), feature: Loader(gate: gate, clock: clock))
    await store.send(.load(id: "load"), \.isLoading, true)
    #expect(store.isTaskRunning(id: "load"))
    gate.open()
    let state = await store.waitUntilIdle()
    #expect(state.value == 42 && !state.isLoading)
    #expect(store.actionHistory.map { "\($0)" } == ["load(id: \"load\")", "loaded(42)"])
  }

  @Test func cancelIsHonoured() async {
    let store = FeatureTestStore(
      initialState: Loader.State(), feature: Loader(gate: gate, clock: clock))
    await store.send(.sleep(id: "timer"))
    #expect(store.runningTaskCount == 1)
    await store.send(.stop(id: "timer"))
    await store.waitUntilIdle()
    #expect(store.runningTaskCount == 0)
    #expect(store.state.error == nil)
  }

  @Test func aTestThatEndsWithTasksRunningFailsUnlessAllowed() async {
    do {
      let store = FeatureTestStore(
        initialState: Loader.State(), feature: Loader(gate: gate, clock: clock),
        assertionProvider: failures)
      await store.send(.sleep(id: "forgotten"))
    }
    #expect(failures.messages.count == 1)
    #expect(failures.messages.first?.contains("1 task(s) still running") == true)

    let allowed = FailureRecorder()
    do {
      let store = FeatureTestStore(
        initialState: Loader.State(), feature: Loader(gate: gate, clock: clock),
        assertionProvider: allowed,
        allowsRunningTasksAtEnd: true)
      await store.send(.sleep(id: "forgotten"))
    }
    #expect(allowed.messages.isEmpty)
  }

  /// Reported to the test that made the store, not to "Test «unknown»".
  @Test func tasksRunningAtTheEndFailTheTestThatMadeTheStore() async {
    await withKnownIssue {
      let store = FeatureTestStore(
        initialState: Loader.State(), feature: Loader(gate: gate, clock: clock))
      await store.send(.sleep(id: "forgotten"))
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("1 task(s) still running") }
    }
  }

  @Test func swiftTestingIsTheDefaultProvider() async {
    await withKnownIssue {
      let store = FeatureTestStore(initialState: Todos.State(), feature: Todos())
      await store.send(.add("a")) { $0.nextId = 5 }
    }
  }

  @Test func viewFeatureSpellsTheTestStoreAsItsSeedDoes() async {
    let store = ViewFeature.TestStore(initialState: Todos.State(), feature: Todos())
    #expect(type(of: store) == FeatureTestStore<Todos>.self)
  }
}
