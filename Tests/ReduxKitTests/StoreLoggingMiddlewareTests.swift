import InMemoryLogging
import Logging
import ReduxCoreTesting
import ReduxKit
import Synchronization
import Testing

@MainActor
@Suite struct StoreLoggingMiddlewareTests {
  typealias StoreLogging = StoreLoggingMiddleware<TallyState, TallyAction>

  @Test func logsEachActionBeforeThePipelineAndItsDurationAfterAtItsLevel() async {
    let (logger, handler) = capturingLogger()
    let logging = StoreLogging(logger: logger, level: .info, clock: ManualClock())
    // The reducer logs too, so the order shows what ran when.
    let noting = AnyReducer<TallyState, TallyAction>(id: "noting") { _ in
      logger.notice("reducing")
    }
    let store = Store(
      initialState: TallyState(), middlewares: [AnyMiddleware(logging)],
      reducers: [tally, noting])
    let state = await store.dispatchWithResult(.add(2))
    #expect(state.total == 2)
    #expect(
      handler.captured == [
        Captured(.info, "action add(2)", ["action": "add"]),
        Captured(.notice, "reducing"),
        Captured(
          .info, "action add(2) handled in \(Duration.zero)",
          ["action": "add", "duration": "\(Duration.zero)"]),
      ])
  }

  @Test func belowTheLoggersLevelItLogsNothingAndTheActionStillRuns() async {
    let (logger, handler) = capturingLogger(level: .info)
    let logging = StoreLogging(logger: logger, clock: ManualClock())  // logs at debug
    #expect(logging.level == .debug)
    let store = Store(
      initialState: TallyState(), middlewares: [AnyMiddleware(logging)], reducers: [tally])
    let state = await store.dispatchWithResult(.add(3))
    #expect(state.total == 3)
    #expect(handler.entries.isEmpty)
  }

  @Test func asAResolverItLogsEveryErrorAtErrorWhateverItsLevelAndForwardsIt() async {
    let (logger, handler) = capturingLogger(level: .error)
    let logging = StoreLogging(logger: logger, level: .debug, clock: ManualClock())
    let forwarded = Mutex<[String]>([])
    let recorder = AnyResolver<TallyState, TallyAction>(id: "recorder") { context in
      forwarded.withLock { $0.append("\(context.error)") }
    }
    let store = Store(
      initialState: TallyState(), middlewares: [AnyMiddleware(logging), failing],
      resolvers: [AnyResolver(logging), recorder], reducers: [tally])
    _ = await store.dispatchWithResult(.fail)
    #expect(
      handler.captured == [
        Captured(
          .error, "action fail failed in middleware(\"guard\"): boom",
          ["action": "fail", "origin": "middleware(\"guard\")"], error: "boom")
      ])
    #expect(forwarded.withLock { $0 } == ["boom"])
  }

  @Test func itsIDNamesItInTheStoresLogsAndAsAnOrigin() {
    #expect(StoreLogging().id == "ReduxKit.StoreLogging")
    #expect(StoreLogging(id: "audit").id == "audit")
  }
}
