import FeatureKit
import Testing

@MainActor
@Suite struct EventTests {
  let home = ViewModelOf<Home>(initialState: Home.State(), reducer: Home())

  @Test func aChildEventRunsTheParentReducerInsideTheChildsFireEvent() {
    let detail = home.scope(
      state: Detail.State(id: 1, title: "One"), event: Home.Action.detail, reducer: Detail())
    detail.state.editor = Editor.State(text: "draft")
    let editor = detail.scope(state: \.editor!, event: Detail.Action.editor, reducer: Editor())
    editor.send(.type("Uno"))
    editor.send(.save)  // Editor fires → Detail renames and fires → Home: all before send returns
    #expect(detail.title == "Uno")
    #expect(home.state.titles[1] == "Uno")
    #expect(home.state.log == ["renamed 1"])
  }

  @Test func aMapperReturningNilDeliversNothing() {
    let detail = home.scope(
      state: Detail.State(id: 1, title: "One"), event: Home.Action.detail, reducer: Detail())
    var delivered: [Editor.Event] = []
    let editor = detail.scope(
      state: Editor.State(text: ""),
      event: { event in
        delivered.append(event)
        return nil
      }, reducer: Editor())
    editor.send(.save)
    #expect(delivered.count == 1)
    #expect(detail.title == "One" && home.state.log.isEmpty)
  }

  @Test func theSameChildStateGetsTheSameViewModel() {
    let child = Detail.State(id: 1, title: "One")
    let first = home.scope(state: child, event: Home.Action.detail, reducer: Detail())
    let second = home.scope(state: child, event: Home.Action.detail, reducer: Detail())
    #expect(first === second)
    let other = home.scope(state: Detail.State(id: 1, title: "One"), reducer: Detail())
    #expect(other !== first)
  }

  @Test func eventsOfAReleasedParentGoNowhere() {
    var parent: ViewModelOf<Home>? = ViewModelOf<Home>(initialState: Home.State(), reducer: Home())
    let parentState = parent!.state
    let child = parent!.scope(
      state: Detail.State(id: 1, title: "One"), event: Home.Action.detail, reducer: Detail())
    parent = nil
    child.send(.close)  // fires .closed: nobody listens any more, nothing crashes
    #expect(parentState.log.isEmpty)
  }
}
