import ReduxKit
import Testing

@testable import Inbox

/// The inbox demo's flow, driven the way the terminal drives it.
@MainActor
@Suite struct InboxExampleTests {
  @Test func replyingThroughThreeScreensMarksTheMessageAndReturns() {
    let demo = InboxDemo()
    _ = demo.run("open 2")
    _ = demo.run("reply")
    #expect(demo.navigator.routeStack.map(\.style) == [.push, .present])
    _ = demo.run("type On it")
    let afterSend = demo.run("send")
    #expect(afterSend.contains("Build is green  ↩︎ replied"))
    #expect(afterSend.contains("↳ On it"))
    #expect(demo.navigator.stack.count == 1)  // the composer dismissed itself
    _ = demo.run("back")
    #expect(demo.inbox.state.message == nil)
    #expect(demo.run("open 9").contains("! no message 9"))
  }

  @Test func anUnknownCommandIsNamedAndHelpListsQuit() {
    let demo = InboxDemo()
    #expect(demo.run("opne 2") == "unknown command 'opne 2' (\(InboxDemo.help))")
    #expect(demo.run("help").hasSuffix("| help | quit"))
    #expect(demo.run("") == "")
  }
}
