import ReduxKit
import Testing

@testable import Counter

@Suite @MainActor
struct CounterExampleTests {
  @Test func demoSessionPrintsWhatHappened() async {
    let output = Output(echo: false)
    await CounterDemo.run(output: output)
    let lines = output.lines
    #expect(lines.filter { $0.hasPrefix("store: refused 'increment'") }.count == 3)
    #expect(lines.filter { $0 == "-> increment" }.count == 2)
    #expect(
      lines.contains(
        "!! cannot add -3: negative amounts are refused (from middleware(\"validation\"))"))
    #expect(lines.contains("count = 13"))
    #expect(lines.contains("count = 0, errors = 1"))
    #expect(lines.last == "store: shut down, 0 queued action(s) discarded")
  }

  @Test func umbrellaModuleReexportsReduxCore() async {
    let store = CounterDemo.makeStore(output: Output(echo: false))
    let state = await store.dispatchWithResult(.add(2))
    #expect(state.count == 2)
    store.shutdown()
  }
}
