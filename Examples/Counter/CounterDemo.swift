import ReduxKit
import Synchronization

/// Builds the demo store and runs a scripted session, returning what it printed.
///
/// The store has a logging middleware, a validating middleware that throws on negative
/// amounts, a resolver that records those errors, and a reducer. `.increment` is dispatched
/// with `maxDispatchable: 2`: of five increments queued at once, two run and three are refused.
@MainActor
enum CounterDemo {
  static func makeStore(output: Output) -> Store<CounterState, CounterAction> {
    let logging = AnyMiddleware<CounterState, CounterAction>(id: "logging") { context in
      output.print("-> \(context.action)")
      context.next()
      context.complete()
    }
    let validation = AnyMiddleware<CounterState, CounterAction>(id: "validation") { context in
      if case .add(let amount) = context.action, amount < 0 {
        throw NegativeAmount(amount: amount)
      }
      context.next()
    }
    let recorder = AnyResolver<CounterState, CounterAction>(id: "recorder") { context in
      output.print("!! \(context.error) (from \(context.origin))")
      context.dispatch(.recordError("\(context.error)"))
    }
    let counter = AnyReducer<CounterState, CounterAction>(id: "counter") { context in
      let (state, action) = context.args
      switch action {
      case .increment: state.count += 1
      case .add(let amount): state.count += amount
      case .reset: state.count = 0
      case .recordError(let message): state.errors.append(message)
      }
    }
    return Store(
      initialState: CounterState(),
      middlewares: [logging, validation],
      resolvers: [recorder],
      reducers: [counter],
      onLog: { entry in
        if case .store(let event) = entry { output.print("store: \(event)") }
      }
    )
  }

  static func run(output: Output) async {
    let store = makeStore(output: output)
    for _ in 0..<5 { store.dispatch(maxDispatchable: 2, .increment) }
    store.dispatch(.add(10))
    store.dispatch(.add(-3))
    let state = await store.dispatchWithResult(.add(1))
    output.print("count = \(state.count)")
    await store.dispatchWithResult(.reset)
    output.print("count = \(store.count), errors = \(store.errors.count)")
    store.shutdown()
  }
}

/// Where the demo prints; tests read the lines back.
final class Output: Sendable {
  private let recorded = Mutex<[String]>([])
  private let echo: Bool

  init(echo: Bool) {
    self.echo = echo
  }

  var lines: [String] { recorded.withLock { $0 } }

  func print(_ line: String) {
    recorded.withLock { $0.append(line) }
    if echo { Swift.print(line) }
  }
}
