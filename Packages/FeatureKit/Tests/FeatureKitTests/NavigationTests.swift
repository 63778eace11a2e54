import Foundation
import InMemoryLogging
import Logging
import Testing

@testable import FeatureKit

@MainActor
@Suite struct NavigationTests {
  let home = ViewModelOf<Home>(initialState: Home.State(), reducer: Home())

  func navigator(_ flow: NavigationFlow<String> = terminalFlow) -> Navigator<String> {
    Navigator(flow: flow, root: home)
  }

  @Test func aThreeLevelFlowRunsEndToEndWithoutAUi() throws {
    let navigator = navigator()
    #expect(navigator.screens == ["Home [1, 2]"])

    home.send(.open(2))
    #expect(navigator.screens == ["Home [1, 2]", "Detail 2: Two"])
    let detail = try #require(navigator.top as? ViewModelOf<Detail>)
    #expect(detail.state === home.state.detail)

    detail.send(.edit)
    #expect(navigator.screens == ["Home [1, 2]", "Detail 2: Two", "Editor [Two]"])
    #expect(navigator.stack.map(\.style) == [.push, .present])
    let editor = try #require(navigator.top as? ViewModelOf<Editor>)

    editor.send(.type("Deux"))
    editor.send(.save)  // Editor → Detail (renames) → Home, then the editor dismisses itself
    #expect(home.state.titles[2] == "Deux")
    #expect(home.state.log == ["renamed 2"])
    #expect(navigator.screens == ["Home [1, 2]", "Detail 2: Deux"])
    #expect(detail.state.editor == nil)  // dismissing set the parent's child state back to nil

    navigator.pop()  // back
    #expect(navigator.screens == ["Home [1, 2]"])
    #expect(home.state.detail == nil)
  }

  @Test func poppingFromAReducerAndPopToRootResetEveryChildState() throws {
    let navigator = navigator()
    home.send(.open(1))
    let detail = try #require(navigator.top as? ViewModelOf<Detail>)
    detail.send(.close)
    #expect(home.state.log == ["closed"])
    #expect(navigator.stack.isEmpty && home.state.detail == nil)

    home.send(.open(1))
    (navigator.top as? ViewModelOf<Detail>)?.send(.edit)
    let opened = try #require(home.state.detail)
    #expect(navigator.stack.count == 2)
    navigator.popToRoot()
    #expect(navigator.stack.isEmpty)
    #expect(home.state.detail == nil && opened.editor == nil)
  }

  @Test func dismissRemovesThePresentationAndWhatItPushed() throws {
    let navigator = navigator()
    home.send(.open(1))
    (navigator.top as? ViewModelOf<Detail>)?.send(.edit)
    navigator.dismiss()
    #expect(navigator.screens == ["Home [1, 2]", "Detail 1: One"])
    navigator.dismiss()  // nothing presented: pops
    #expect(navigator.screens == ["Home [1, 2]"])
  }

  @Test func replaceShowsTheChildInPlaceOfTheScreenThatRouted() throws {
    let navigator = navigator()
    home.send(.open(1))
    let detail = try #require(navigator.top as? ViewModelOf<Detail>)
    detail.send(.replaceWithEditor)
    #expect(navigator.screens == ["Home [1, 2]", "Editor [One]"])
    #expect(navigator.stack.map(\.style) == [.push])
    let editor = try #require(navigator.top as? ViewModelOf<Editor>)
    editor.send(.type("Uno"))
    editor.send(.save)  // the hidden Detail still hears its child, and dismiss pops the editor
    #expect(home.state.titles[1] == "Uno")
    #expect(navigator.screens == ["Home [1, 2]"])
    #expect(home.state.detail == nil)
  }

  @Test func aRouteToAnUnregisteredStateIsATypedErrorNotASilentDrop() {
    let homeOnly = NavigationFlow<String>(stateTypeList: [Home.State.self]) { _ in "screen" }
    let navigator = navigator(homeOnly)
    home.send(.openUnregistered)
    #expect(
      home.state.log == ["\(RouteError.unregisteredState(String(reflecting: Detail.State.self)))"])
    #expect(navigator.stack.isEmpty)
  }

  @Test func aRouteWithoutItsChildStateIsATypedError() {
    let navigator = navigator()
    home.send(.openWithoutState)
    #expect(
      home.state.log == [
        "FeatureKitTests.Home.State routed to FeatureKitTests.Detail.State before setting it"
      ])
    #expect(navigator.stack.isEmpty)
  }

  @Test func everyRefusalIsLoggedWithTheNavigatorsLogger() {
    let logs = InMemoryLogHandler()
    let homeOnly = NavigationFlow<String>(stateTypeList: [Home.State.self]) { _ in "screen" }
    let navigator = Navigator(flow: homeOnly, root: home, logger: logs.logger)
    home.send(.openWithoutState)
    home.send(.openUnregistered)
    #expect(throws: RouteError.self) { try navigator.open([RouteRecord(Detail.State.self)]) }
    let refusals = home.state.log + ["deep link step 0: no registered route from"]
    #expect(logs.messages(at: .error).count == 3)
    for (message, refusal) in zip(logs.messages(at: .error), refusals) {
      #expect(message.hasPrefix("route refused: \(refusal)"))
    }
  }

  @Test func aRouteFromAStateNoNavigatorShowsIsATypedError() {
    home.send(.openUnregistered)  // no navigator
    #expect(home.state.log == ["FeatureKitTests.Home.State is not shown by a navigator"])
  }

  /// With no navigator to log it, the view model running the reducer does: a reducer that
  /// ignores what `route` returns still leaves a trace.
  @Test func aRefusalNoNavigatorSeesIsLoggedByTheViewModelRunningTheReducer() {
    let logs = InMemoryLogHandler()
    let home = ViewModelOf<Home>(
      initialState: Home.State(), reducer: Home(), logger: logs.logger)
    home.send(.open(1))  // ignores the refusal `route` returns
    home.send(.openWithoutState)  // tryRoute
    #expect(
      logs.messages(at: .error) == [
        "route refused: FeatureKitTests.Home.State is not shown by a navigator",
        "route refused: FeatureKitTests.Home.State routed to FeatureKitTests.Detail.State before setting it",
      ])
  }

  @Test func aDeepLinkIsCheckedWholeBeforeAnythingIsApplied() throws {
    let navigator = navigator()
    home.send(.open(2))
    let valid = [RouteRecord(Detail.State.self), RouteRecord(Editor.State.self, style: .present)]
    let invalid = [RouteRecord(Detail.State.self), RouteRecord(Home.State.self)]

    #expect(
      throws: RouteError.invalidDeepLink(
        index: 1,
        .noRoute(
          from: String(reflecting: Detail.State.self), to: String(reflecting: Home.State.self)))
    ) {
      try navigator.open(invalid)
    }
    #expect(navigator.screens == ["Home [1, 2]", "Detail 2: Two"])  // untouched

    try navigator.open(valid)
    #expect(navigator.screens == ["Home [1, 2]", "Detail 1: One", "Editor []"])
    #expect(navigator.routeStack == valid)
  }

  @Test func theRouteStackIsCodableAndRestoresWithTheStates() throws {
    let navigator = navigator()
    home.send(.open(2))
    (navigator.top as? ViewModelOf<Detail>)?.send(.edit)
    (navigator.top as? ViewModelOf<Editor>)?.send(.type("draft"))

    let saved = try JSONEncoder().encode(navigator.routeStack)
    let savedState = SavedHome(home.state)

    // A new process: the root state comes back with its child states, then the stack.
    let restoredHome = ViewModelOf<Home>(initialState: savedState.restore(), reducer: Home())
    let restored = Navigator(flow: terminalFlow, root: restoredHome)
    try restored.restore(try JSONDecoder().decode([RouteRecord].self, from: saved))
    #expect(restored.screens == ["Home [1, 2]", "Detail 2: Two", "Editor [draft]"])
    #expect(restored.stack.map(\.style) == [.push, .present])
    (restored.top as? ViewModelOf<Editor>)?.send(.save)
    #expect(restoredHome.state.titles[2] == "draft")  // events flow in the restored stack
  }

  @Test func aPoppedScreensViewModelGoesAway() throws {
    let navigator = navigator()
    home.send(.open(1))
    weak let detail = navigator.top as? ViewModelOf<Detail>
    #expect(detail != nil)
    navigator.pop()
    #expect(detail == nil)
  }

  @Test func nothingIsLeftListeningOnceTheScreensAndNavigatorAreGone() throws {
    var navigator: Navigator<String>? = navigator()
    home.send(.open(1))
    (navigator?.top as? ViewModelOf<Detail>)?.send(.edit)
    let detail = try #require(home.state.detail)
    let editor = try #require(detail.editor)
    #expect(StateChannels.isListened(detail) && StateChannels.isListened(editor))
    navigator?.popToRoot()
    #expect(!StateChannels.isListened(detail) && !StateChannels.isListened(editor))
    #expect(StateChannels.isListened(home.state))
    navigator = nil
    #expect(!StateChannels.isListened(home.state))
  }

  @Test func dlvvmNamesAreReachable() {
    func run<R: DLVVM.Reducer>(_ reducer: R, _ state: R.State, _ action: R.Action) {
      _ = reducer.reduce(into: state, action: action)
    }
    let state = Editor.State(text: "")
    run(Editor(), state, .type("x"))
    #expect(state.text == "x")
  }
}

/// The saved form of the flow's states (the `@Observable` classes stay free of Codable code).
struct SavedHome: Codable {
  struct SavedDetail: Codable {
    var id: Int
    var title: String
    var editorText: String?
  }

  var titles: [Int: String]
  var detail: SavedDetail?

  @MainActor init(_ state: Home.State) {
    titles = state.titles
    detail = state.detail.map {
      SavedDetail(id: $0.id, title: $0.title, editorText: $0.editor?.text)
    }
  }

  @MainActor func restore() -> Home.State {
    let state = Home.State()
    state.titles = titles
    state.detail = detail.map { saved in
      let detail = Detail.State(id: saved.id, title: saved.title)
      detail.editor = saved.editorText.map(Editor.State.init(text:))
      return detail
    }
    return state
  }
}
