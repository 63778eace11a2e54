import Benchmark
import FeatureKit
import Observation

@inline(never)
func blackHole<T>(_ value: T) {}

struct Counter: StoreFeature {
  struct State { var count = 0 }
  enum Action: Sendable { case increment }

  func handle() -> ActionHandler<Action, State> {
    ActionHandler { _, state in
      state.count += 1
      return .none
    }
  }
}

final class Tally: FeatureReducer {
  @Observable final class State: BusinessState {
    typealias R = Tally
    var count = 0
  }

  enum Action: Sendable { case increment }

  func reduce(into state: State, action: Action) -> Procedure<Action, State> {
    state.count += 1
    return .none
  }
}

@MainActor @Observable final class HandRolledStore {
  private(set) var state = Counter.State()
  @ObservationIgnored private let reduce: (Counter.Action, inout Counter.State) -> Void = {
    _, state in
    state.count += 1
  }

  @inline(never)
  func send(_ action: Counter.Action) { reduce(action, &state) }
}

let benchmarks: @Sendable () -> Void = {
  let perOperation = Benchmark.Configuration(
    metrics: [.wallClock, .mallocCountTotal], timeUnits: .nanoseconds, scalingFactor: .kilo,
    maxDuration: .seconds(10), maxIterations: 20)

  // The baseline: what a hand-rolled store does, an @Observable state mutated by a closure.
  Benchmark("send .none action: hand-rolled @Observable store", configuration: perOperation) {
    @MainActor (benchmark: Benchmark) async in
    let store = HandRolledStore()
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations { store.send(.increment) }
    benchmark.stopMeasurement()
    blackHole(store)
  }

  Benchmark("send .none action: FeatureStore", configuration: perOperation) {
    @MainActor (benchmark: Benchmark) async in
    let store = FeatureStore(initialState: Counter.State(), feature: Counter())
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations { store.send(.increment) }
    benchmark.stopMeasurement()
    blackHole(store)
  }

  Benchmark("send .none action: DLViewModel", configuration: perOperation) {
    @MainActor (benchmark: Benchmark) async in
    let viewModel = ViewModelOf<Tally>(initialState: Tally.State(), reducer: Tally())
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations { viewModel.send(.increment) }
    benchmark.stopMeasurement()
    blackHole(viewModel)
  }
}
