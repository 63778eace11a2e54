import FeatureKit
import ReduxCore
import ReduxCoreTesting

/// ViewFeature's integration-test feature: a todo list.
struct Todos: StoreFeature {
  struct Todo: Equatable {
    var id: Int
    var title: String
    var isCompleted = false
  }

  struct State: Equatable {
    var todos: [Todo] = []
    var nextId = 1
  }

  enum Action: Sendable {
    case add(String)
    case complete(Int)
    case delete(Int)
    case toggleAll
    case clearCompleted
  }

  func handle() -> ActionHandler<Action, State> {
    ActionHandler { action, state in
      switch action {
      case .add(let title):
        state.todos.append(Todo(id: state.nextId, title: title))
        state.nextId += 1
      case .complete(let id):
        if let index = state.todos.firstIndex(where: { $0.id == id }) {
          state.todos[index].isCompleted = true
        }
      case .delete(let id):
        state.todos.removeAll { $0.id == id }
      case .toggleAll:
        let allCompleted = state.todos.allSatisfy(\.isCompleted)
        for index in state.todos.indices { state.todos[index].isCompleted = !allCompleted }
      case .clearCompleted:
        state.todos.removeAll(where: \.isCompleted)
      }
      return .none
    }
  }
}

enum LoadError: Error, Equatable { case offline }

/// A feature whose effects the test controls: `load` waits on a gate, `sleep` on a manual clock.
struct Loader: StoreFeature {
  struct State: Equatable {
    var value: Int?
    var isLoading = false
    var error: String?
    var count = 0
  }

  enum Action: Sendable {
    case load(id: String)
    case loaded(Int)
    case stop(id: String)
    case fail
    case failUncaught
    case sleep(id: String)
    case increment
  }

  let gate: Gate
  let clock: ManualClock

  func handle() -> ActionHandler<Action, State> {
    ActionHandler { [gate, clock] action, state in
      switch action {
      case .load(let id):
        state.isLoading = true
        return .run(id: id) { send in
          try await gate.wait()
          await send(.loaded(42))
        }
      case .loaded(let value):
        state.value = value
        state.isLoading = false
        return .none
      case .stop(let id):
        state.isLoading = false
        return .cancel(id: id)
      case .fail:
        return .run(id: "fail") { throw LoadError.offline }
          .catch { error, state in state.error = "\(error)" }
      case .failUncaught:
        return .run { throw LoadError.offline }
      case .sleep(let id):
        return .run(id: id) { try await clock.sleep(for: .seconds(1)) }
          .catch { error, state in state.error = "caught \(error)" }
      case .increment:
        state.count += 1
        return .none
      }
    }
  }
}

/// Search as you type: each keystroke's search is debounced; a result carries its query.
struct Search: StoreFeature {
  struct State: Equatable {
    var query = ""
    var results: [String] = []
  }

  enum Action: Sendable {
    case queryChanged(String)
    case searched(String)
  }

  func handle() -> ActionHandler<Action, State> {
    ActionHandler { action, state in
      switch action {
      case .queryChanged(let text):
        state.query = text
        return .run(id: "search", policy: .debounce(.milliseconds(300))) { send in
          await send(.searched(text))
        }
      case .searched(let text):
        state.results.append(text)
        return .none
      }
    }
  }
}
