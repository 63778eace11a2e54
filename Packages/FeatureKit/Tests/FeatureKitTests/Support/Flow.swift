import FeatureKit
import Observation

/// A three-level flow: Home lists items, pushes an item's Detail, which presents an Editor.
/// Events go back up: Editor → Detail → Home.
final class Home: FeatureReducer {
  @Observable final class State: NavigatableState {
    typealias R = Home
    var titles: [Int: String] = [1: "One", 2: "Two"]
    var detail: Detail.State?
    var log: [String] = []
  }

  enum Action: Sendable {
    case open(Int)
    case openUnregistered
    case openWithoutState
    case detail(Detail.Event)
  }

  func reduce(into state: State, action: Action) -> Procedure<Action, State> {
    switch action {
    case .open(let id):
      state.detail = Detail.State(id: id, title: state.titles[id] ?? "?")
      route(
        childState: \.detail, to: Action.detail, reducer: Detail(), routeStyle: .push, with: state)
    case .openUnregistered:
      state.detail = Detail.State(id: 0, title: "unregistered")
      if let refusal = route(
        childState: \.detail, to: Action.detail, reducer: Detail(), with: state)
      {
        state.log.append("\(refusal)")
      }
    case .openWithoutState:
      state.detail = nil
      do {
        try tryRoute(childState: \.detail, to: Action.detail, reducer: Detail(), with: state)
      } catch {
        state.log.append("\(error)")
      }
    case .detail(.renamed(let id, let title)):
      state.titles[id] = title
      state.log.append("renamed \(id)")
    case .detail(.closed):
      state.log.append("closed")
    }
    return .none
  }
}

final class Detail: FeatureReducer {
  @Observable final class State: NavigatableState {
    typealias R = Detail
    let id: Int
    var title: String
    var editor: Editor.State?

    init(id: Int, title: String) {
      self.id = id
      self.title = title
    }
  }

  enum Action: Sendable {
    case edit
    case replaceWithEditor
    case editor(Editor.Event)
    case close
  }

  enum Event {
    case renamed(id: Int, title: String)
    case closed
  }

  func reduce(into state: State, action: Action) -> Procedure<Action, State> {
    switch action {
    case .edit, .replaceWithEditor:
      state.editor = Editor.State(text: state.title)
      let style: RouteStyle = if case .edit = action { .present } else { .replace }
      route(
        childState: \.editor, to: Action.editor, reducer: Editor(), routeStyle: style, with: state)
    case .editor(.saved(let text)):
      state.title = text
      fireEvent(.renamed(id: state.id, title: text), with: state)
    case .editor(.typed):
      break
    case .close:
      fireEvent(.closed, with: state)
      pop(with: state)
    }
    return .none
  }
}

final class Editor: FeatureReducer {
  @Observable final class State: NavigatableState {
    typealias R = Editor
    var text: String

    init(text: String) { self.text = text }
  }

  enum Action: Sendable {
    case type(String)
    case save
    case cancel
  }

  enum Event {
    case typed
    case saved(String)
  }

  func reduce(into state: State, action: Action) -> Procedure<Action, State> {
    switch action {
    case .type(let text):
      state.text = text
      fireEvent(.typed, with: state)
    case .save:
      fireEvent(.saved(state.text), with: state)
      dismiss(with: state)
    case .cancel:
      dismiss(with: state)
    }
    return .none
  }
}

/// Screens as a terminal would print them.
@MainActor let terminalFlow = NavigationFlow<String>(stateTypeList: [
  Home.State.self, Detail.State.self,
]) { viewModel in
  switch viewModel {
  case let home as ViewModelOf<Home>: "Home \(home.titles.keys.sorted())"
  case let detail as ViewModelOf<Detail>: "Detail \(detail.state.id): \(detail.title)"
  case let editor as ViewModelOf<Editor>: "Editor [\(editor.text)]"
  default: nil
  }
}
.registering(\Home.State.detail, event: Home.Action.detail, reducer: Detail()) {
  Detail.State(id: 1, title: "One")
}
.registering(\Detail.State.editor, event: Detail.Action.editor, reducer: Editor()) {
  Editor.State(text: "")
}
