import Observation
import ReduxCore
import Synchronization

@MainActor
@Observable
final class BenchState: ReduxState {
  var count = 0
  var readOnly: ReadOnly { ReadOnly(self) }

  @MainActor
  @Observable
  final class ReadOnly: ReduxReadOnlyState {
    private let state: BenchState
    init(_ state: BenchState) { self.state = state }
    var count: Int { state.count }
  }
}

enum BenchAction: ReduxAction {
  case increment
  case add(Int)

  var id: String {
    switch self {
    case .increment: "increment"
    case .add: "add"
    }
  }
}

/// A reducer that mutates one property, as the benchmark prescribes.
func countingReducer(_ id: String) -> AnyReducer<BenchState, BenchAction> {
  AnyReducer(id: id) { context in
    switch context.action {
    case .increment: context.state.count &+= 1
    case .add(let amount): context.state.count &+= amount
    }
  }
}

/// A pass-through middleware that reports its timing (a no-op without `onLog`).
func passThrough(_ id: String) -> AnyMiddleware<BenchState, BenchAction> {
  AnyMiddleware(id: id) { context in
    context.next()
    context.complete()
  }
}

@MainActor
func makeStore(middlewares: Int, reducers: Int, logging: Bool, capacity: Int)
  -> Store<BenchState, BenchAction>
{
  let middlewareList: [AnyMiddleware<BenchState, BenchAction>] =
    (0..<middlewares).map { passThrough("m\($0)") }
  let reducerList: [AnyReducer<BenchState, BenchAction>] =
    (0..<reducers).map { countingReducer("r\($0)") }
  var onLog: (@Sendable (Store<BenchState, BenchAction>.Log) -> Void)?
  if logging { onLog = consumeLog }
  return Store(
    initialState: BenchState(),
    middlewares: middlewareList,
    reducers: reducerList,
    queueCapacity: capacity,
    onLog: onLog
  )
}

@inline(never)
func blackHole<T>(_ value: T) {}

/// The benchmarks' `onLog`: receives every entry and keeps none.
@Sendable @inline(never)
func consumeLog(_ entry: Store<BenchState, BenchAction>.Log) {
  blackHole(entry)
}

/// Floods `store` from `producers` background tasks (`each` accepted actions apiece, retrying
/// a refused dispatch after a yield) while a background probe hops onto the main actor again
/// and again; returns how long each hop waited.
func measureProbeLatencies(
  store: Store<BenchState, BenchAction>, producers: Int, each: Int
) async -> [Duration] {
  let flooding = ProducerCount(producers)
  let probe = Task.detached {
    var latencies: [Duration] = []
    while flooding.running.load(ordering: .relaxed) > 0 {
      let start = ContinuousClock.now
      await MainActor.run {}
      latencies.append(ContinuousClock.now - start)
    }
    return latencies
  }
  await withTaskGroup(of: Void.self) { group in
    for _ in 0..<producers {
      group.addTask {
        for _ in 0..<each {
          while (try? store.tryDispatch(.increment)) == nil { await Task.yield() }
        }
        flooding.running.subtract(1, ordering: .relaxed)
      }
    }
  }
  return await probe.value
}

/// How many producers are still flooding, shared between tasks.
final class ProducerCount: Sendable {
  let running: Atomic<Int>
  init(_ count: Int) { running = Atomic(count) }
}
