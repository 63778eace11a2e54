import FeatureKit
import InMemoryLogging
import Logging
import Testing

/// What the hooks saw, in order.
@MainActor final class HookLog {
  var entries: [String] = []
}

struct Failure: Error, CustomStringConvertible {
  let name: String
  var description: String { name }
}

/// A middleware that records its hooks and can be told to fail in one of them.
struct Recording: ActionMiddleware {
  let id: String
  let log: HookLog
  var failBefore = false
  var failAfter = false
  var failOnError = false

  func beforeAction<Action: Sendable, State>(_ action: Action, state: State) throws {
    log.entries.append("\(id).before(\(action))")
    if failBefore { throw Failure(name: "\(id) before") }
  }

  func afterAction<Action: Sendable, State>(
    _ action: Action, state: State, result: ActionTask<Action, State>, duration: Duration
  ) throws {
    log.entries.append("\(id).after(\(action), \(result.kind), \(duration >= .zero))")
    if failAfter { throw Failure(name: "\(id) after") }
  }

  func onError<Action: Sendable, State>(_ error: any Error, action: Action, state: State) throws {
    log.entries.append("\(id).onError(\(error))")
    if failOnError { throw Failure(name: "\(id) onError") }
  }
}

struct Counter: StoreFeature {
  struct State: Equatable {
    var count = 0
    var errors: [String] = []
  }

  enum Action: Sendable { case increment, load }

  let configure: @MainActor (ActionHandler<Action, State>) -> ActionHandler<Action, State>
  var log: HookLog?

  func handle() -> ActionHandler<Action, State> {
    configure(
      ActionHandler { [log] action, state in
        log?.entries.append("body(\(action))")
        switch action {
        case .increment:
          state.count += 1
          return .none
        case .load:
          return .run(id: "load") { send in await send(.increment) }
        }
      })
  }
}

@MainActor
@Suite struct MiddlewareTests {
  let log = HookLog()

  @Test func hooksRunInRegistrationOrderAroundTheBody() {
    let store = FeatureStore(
      initialState: Counter.State(),
      feature: Counter(
        configure: { [log] in $0.use(Recording(id: "a", log: log)).use(Recording(id: "b", log: log))
        }, log: log))
    store.send(.increment)
    #expect(
      log.entries == [
        "a.before(increment)", "b.before(increment)", "body(increment)",
        "a.after(increment, none, true)", "b.after(increment, none, true)",
      ])
    #expect(store.state.count == 1)
  }

  @Test func aBeforeActionFailureSkipsTheBodyAndReachesEveryErrorHandlerThenOnError() {
    let store = FeatureStore(
      initialState: Counter.State(),
      feature: Counter(
        configure: { [log] in
          $0.use(Recording(id: "a", log: log, failBefore: true, failOnError: true))
            .use(Recording(id: "b", log: log))
            .onError { error, state in state.errors.append("first: \(error)") }
            .onError { error, state in state.errors.append("second: \(error)") }
        }, log: log))
    let task = store.send(.load)
    _ = task
    #expect(log.entries == ["a.before(load)", "a.onError(a before)", "b.onError(a before)"])
    #expect(store.state.errors == ["first: a before", "second: a before"])
    #expect(store.runningTaskCount == 0)  // the body's task was never created
    #expect(store.state.count == 0)
  }

  @Test func anAfterActionFailureIsReportedButTheActionAndItsTaskStand() async {
    let store = FeatureStore(
      initialState: Counter.State(),
      feature: Counter(
        configure: { [log] in
          $0.use(Recording(id: "a", log: log, failAfter: true))
            .onError { error, state in state.errors.append("\(error)") }
        }, log: nil))
    await store.send(.load).value
    // Once for load, once for the increment it sent.
    #expect(store.state.errors == ["a after", "a after"])
    #expect(store.state.count == 1)
  }

  @Test func transformsRewriteTasksInTheOrderAddedAndBuildersDoNotChangeTheOriginal()
    async
  {
    let base = ActionHandler<Int, Int> { action, state in
      state += action
      return .run(id: "main") {}
    }
    let cancelling = base.transform { task in
      guard case .run(let id) = task.kind else { return task }
      return .cancel(id: "\(id)-cancelled")
    }
    let chained = cancelling.transform { task in
      task.kind == .cancel(id: "main-cancelled") ? .none : task
    }
    var state = 0
    #expect(base.handle(action: 5, state: &state).kind == .run(id: "main"))
    #expect(cancelling.handle(action: 5, state: &state).kind == .cancel(id: "main-cancelled"))
    #expect(chained.handle(action: 5, state: &state).kind == .none)
    #expect(state == 15)
    #expect(base.use(LoggingMiddleware()).allMiddlewares.count == 1)
    #expect(base.allMiddlewares.isEmpty)
  }

  @Test func loggingMiddlewareLogsEachStepAtItsLevel() {
    let logs = InMemoryLogHandler()
    let verbose = FeatureStore(
      initialState: Counter.State(),
      feature: Counter(configure: { $0.use(LoggingMiddleware(logger: logs.logger)) }))
    verbose.send(.increment)
    #expect(logs.messages(at: .debug) == ["▶️ increment"])
    #expect(logs.messages(at: .info).count == 1)
    #expect(logs.messages(at: .info).first?.hasPrefix("✅ increment in ") == true)
    #expect(logs.messages(at: .info).first?.hasSuffix(" ms → none") == true)

    let quiet = InMemoryLogHandler()
    let failing = FeatureStore(
      initialState: Counter.State(),
      feature: Counter(configure: { [log] in
        $0.use(LoggingMiddleware(logger: quiet.logger, logLevel: .error))
          .use(Recording(id: "a", log: log, failBefore: true))
          .onError { _, _ in }
      }))
    failing.send(.increment)
    #expect(quiet.messages(at: .debug).isEmpty && quiet.messages(at: .info).isEmpty)
    #expect(quiet.messages(at: .error) == ["❌ increment: a before"])
    #expect(LoggingMiddleware().id == "FeatureKit.Logging")
  }

  @Test func aMiddlewareFailureNoHandlerTakesIsLoggedWithTheStoresLogger() {
    let logs = InMemoryLogHandler()
    let store = FeatureStore(
      initialState: Counter.State(),
      feature: Counter(configure: { [log] in
        $0.use(Recording(id: "a", log: log, failBefore: true, failOnError: true))
      }),
      logger: logs.logger)
    store.send(.increment)
    #expect(
      logs.messages(at: .error) == [
        "error middleware a failed: a onError (handling a before)",
        "action increment failed in a middleware: a before",
      ])
  }
}
