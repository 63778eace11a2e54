/// The state, actions and pipeline pieces every dispatch measurement shares: the package-benchmark
/// suite (ReduxCoreBenchmarks) and the instruction counter (DispatchContenders).
public import ReduxCore

#if !PLAIN_BENCH_STATE
  public import Observation
#endif

/// The state every contender changes: `@Observable`, as an app's state is.
///
/// Built with `-Xswiftc -DPLAIN_BENCH_STATE` (`Scripts/instructions.sh` does, into
/// `Benchmarks/.build-plain`), it is a plain class instead: the state of a store that no view
/// observes (a server's, a command-line tool's), whose mutations notify no registrar, as the
/// ReSwift-style store's value state notifies none. `Observable` stays as the marker
/// `ReduxState` asks for. The same code, compiled once for each state, so that neither build
/// measures code the other does not run.
@MainActor
#if !PLAIN_BENCH_STATE
  @Observable
#endif
public final class BenchState: ReduxState {
  public var count = 0
  public var readOnly: ReadOnly { ReadOnly(self) }

  public init() {}

  @MainActor
  #if !PLAIN_BENCH_STATE
    @Observable
  #endif
  public final class ReadOnly: ReduxReadOnlyState {
    private let state: BenchState
    public init(_ state: BenchState) { self.state = state }
    public var count: Int { state.count }
  }
}

public enum BenchAction: ReduxAction, Codable {
  case increment
  case add(Int)

  public var id: String {
    switch self {
    case .increment: "increment"
    case .add: "add"
    }
  }
}

/// A reducer that mutates one property, as the benchmark prescribes.
public func countingReducer(_ id: String) -> AnyReducer<BenchState, BenchAction> {
  AnyReducer(id: id) { context in
    switch context.action {
    case .increment: context.state.count &+= 1
    case .add(let amount): context.state.count &+= amount
    }
  }
}

/// A pass-through middleware that reports its timing (a no-op without `onLog`).
public func passThrough(_ id: String) -> AnyMiddleware<BenchState, BenchAction> {
  AnyMiddleware(id: id) { context in
    context.next()
    context.complete()
  }
}

@MainActor
public func makeStore(
  middlewares: Int, reducers: Int, onLog: (@Sendable (Store<BenchState, BenchAction>.Log) -> Void)?,
  capacity: Int, inspector: (any StoreInspector<BenchState, BenchAction>)? = nil
)
  -> Store<BenchState, BenchAction>
{
  let middlewareList: [AnyMiddleware<BenchState, BenchAction>] =
    (0..<middlewares).map { passThrough("m\($0)") }
  let reducerList: [AnyReducer<BenchState, BenchAction>] =
    (0..<reducers).map { countingReducer("r\($0)") }
  return Store(
    initialState: BenchState(),
    middlewares: middlewareList,
    reducers: reducerList,
    queueCapacity: capacity,
    inspector: inspector,
    onLog: onLog
  )
}

/// The bare pipeline: 3 middleware closures folded around 3 reducer closures, no store. It does
/// the same work per action as a store with 3 pass-through middlewares and 3 counting reducers.
@MainActor
public func makeBarePipeline(state: BenchState) -> @MainActor (BenchAction) -> Void {
  typealias Next = @MainActor (BenchAction) -> Void
  let reducers: [@MainActor (BenchState, BenchAction) -> Void] = (0..<3).map { _ in
    { state, action in
      switch action {
      case .increment: state.count &+= 1
      case .add(let amount): state.count &+= amount
      }
    }
  }
  let middlewares: [@MainActor (@escaping Next) -> Next] = (0..<3).map { _ in
    { next in { action in next(action) } }
  }
  let reduce: Next = { action in for reducer in reducers { reducer(state, action) } }
  return middlewares.reversed().reduce(reduce) { next, middleware in middleware(next) }
}
