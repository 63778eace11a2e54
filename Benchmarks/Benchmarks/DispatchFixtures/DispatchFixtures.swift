/// The state, actions and pipeline pieces every dispatch measurement shares: the package-benchmark
/// suite (ReduxCoreBenchmarks) and the instruction counter (DispatchContenders).
public import Observation
public import ReduxCore

/// A state with one counter, which the fixtures' reducers increment: ``BenchState`` (observed,
/// as an app's state is) or ``PlainBenchState`` (observed by nobody).
///
/// NB: the fixtures are generic over it but internal, and each state has its own public entry
/// points: so the generic code is specialised here, where the state's accessors inline, as the
/// concrete fixtures were. Specialised in the benchmark's module instead, the `@Observable`
/// accessors of this module's state stay out of line, and each action costs ~100 instructions
/// more than the same code in an app.
@MainActor
public protocol CountingState: ReduxState {
  var count: Int { get set }
}

@MainActor
@Observable
public final class BenchState: CountingState {
  public var count = 0
  public var readOnly: ReadOnly { ReadOnly(self) }

  public init() {}

  @MainActor
  @Observable
  public final class ReadOnly: ReduxReadOnlyState {
    private let state: BenchState
    public init(_ state: BenchState) { self.state = state }
    public var count: Int { state.count }
  }
}

/// ``BenchState`` without `@Observable`: the state of a store no view observes (a server's, a
/// command-line tool's). A mutation is a plain store, with no registrar to notify (about 700
/// instructions per mutation with `@Observable` on Swift 6.3.1: three key paths, the registrar's
/// lock twice). It conforms to `Observable` as the marker `ReduxState` asks for; the store's
/// `changes(of:)` still work, since they compare selected values after each batch.
@MainActor
public final class PlainBenchState: CountingState {
  public var count = 0
  public init() {}
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
  counting(id)
}

/// A pass-through middleware that reports its timing (a no-op without `onLog`).
public func passThrough(_ id: String) -> AnyMiddleware<BenchState, BenchAction> {
  forwarding(id)
}

/// A store with `middlewares` pass-through middlewares and `reducers` counting reducers.
@MainActor
public func makeStore(
  middlewares: Int, reducers: Int, onLog: (@Sendable (Store<BenchState, BenchAction>.Log) -> Void)?,
  capacity: Int, inspector: (any StoreInspector<BenchState, BenchAction>)? = nil
)
  -> Store<BenchState, BenchAction>
{
  store(
    of: BenchState(), middlewares: middlewares, reducers: reducers, onLog: onLog,
    capacity: capacity, inspector: inspector)
}

/// ``makeStore(middlewares:reducers:onLog:capacity:inspector:)`` on a ``PlainBenchState``.
@MainActor
public func makePlainStore(
  middlewares: Int, reducers: Int,
  onLog: (@Sendable (Store<PlainBenchState, BenchAction>.Log) -> Void)?, capacity: Int
)
  -> Store<PlainBenchState, BenchAction>
{
  store(
    of: PlainBenchState(), middlewares: middlewares, reducers: reducers, onLog: onLog,
    capacity: capacity, inspector: nil)
}

/// The bare pipeline: 3 middleware closures folded around 3 reducer closures, no store. It does
/// the same work per action as a store with 3 pass-through middlewares and 3 counting reducers.
@MainActor
public func makeBarePipeline(state: BenchState) -> @MainActor (BenchAction) -> Void {
  barePipeline(state)
}

/// ``makeBarePipeline(state:)`` on a ``PlainBenchState``.
@MainActor
public func makeBarePipeline(state: PlainBenchState) -> @MainActor (BenchAction) -> Void {
  barePipeline(state)
}

func counting<State: CountingState>(_ id: String) -> AnyReducer<State, BenchAction> {
  AnyReducer(id: id) { context in
    switch context.action {
    case .increment: context.state.count &+= 1
    case .add(let amount): context.state.count &+= amount
    }
  }
}

func forwarding<State: CountingState>(_ id: String) -> AnyMiddleware<State, BenchAction> {
  AnyMiddleware(id: id) { context in
    context.next()
    context.complete()
  }
}

@MainActor
func store<State: CountingState>(
  of initialState: State, middlewares: Int, reducers: Int,
  onLog: (@Sendable (Store<State, BenchAction>.Log) -> Void)?,
  capacity: Int, inspector: (any StoreInspector<State, BenchAction>)?
)
  -> Store<State, BenchAction>
{
  let middlewareList: [AnyMiddleware<State, BenchAction>] =
    (0..<middlewares).map { forwarding("m\($0)") }
  let reducerList: [AnyReducer<State, BenchAction>] =
    (0..<reducers).map { counting("r\($0)") }
  return Store(
    initialState: initialState,
    middlewares: middlewareList,
    reducers: reducerList,
    queueCapacity: capacity,
    inspector: inspector,
    onLog: onLog
  )
}

@MainActor
func barePipeline<State: CountingState>(_ state: State) -> @MainActor (BenchAction) -> Void {
  typealias Next = @MainActor (BenchAction) -> Void
  let reducers: [@MainActor (State, BenchAction) -> Void] = (0..<3).map { _ in
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
