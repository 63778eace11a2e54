// What README.md's "FeatureKit in one screen" takes as given: a ViewFeature-style search, and
// a DLVVM-style home screen that opens a detail screen.
import ReduxKit

struct Search: StoreFeature {
  struct State: Equatable {
    var query = ""
    var submitted: String?
  }

  enum Action: Sendable {
    case query(String)
    case submit
    case submitted(String)
  }

  func handle() -> ActionHandler<Action, State> {
    ActionHandler { action, state in
      switch action {
      case .query(let text):
        state.query = text
        return .none
      case .submit:
        let query = state.query
        return .run { send in await send(.submitted(query)) }
      case .submitted(let query):
        state.submitted = query
        return .none
      }
    }
  }
}

final class Home: FeatureReducer {
  @Observable final class State: NavigatableState {
    typealias R = Home
    var detail: Detail.State?
  }

  enum Action: Sendable {
    case open(Int)
    case detail(Detail.Event)
  }

  func reduce(into state: State, action: Action) -> Procedure<Action, State> {
    if case .open(let id) = action {
      state.detail = Detail.State(id: id)
      route(childState: \.detail, to: Action.detail, reducer: Detail(), with: state)
    }
    return .none
  }
}

final class Detail: FeatureReducer {
  @Observable final class State: NavigatableState {
    typealias R = Detail
    let id: Int
    init(id: Int) { self.id = id }
  }

  enum Action: Sendable { case close }
  enum Event { case closed }

  func reduce(into state: State, action: Action) -> Procedure<Action, State> { .none }
}

let flow = NavigationFlow<String>(stateTypeList: [Home.State.self, Detail.State.self]) { _ in nil }
  .registering(\Home.State.detail, event: Home.Action.detail, reducer: Detail()) {
    Detail.State(id: 1)
  }
let item = 1
