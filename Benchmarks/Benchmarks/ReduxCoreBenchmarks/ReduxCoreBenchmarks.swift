import Benchmark
import DispatchFixtures
import ReduxCore

/// Dispatch throughput, in ns per action: each benchmark iteration is one action of a burst of
/// `scaledIterations` (1M) actions dispatched from a background task into a store whose queue
/// holds the whole burst. The baseline folds the same closures with no store.
let benchmarks: @Sendable () -> Void = {
  let perAction = Benchmark.Configuration(
    metrics: [.wallClock, .mallocCountTotal, .cpuTotal],
    timeUnits: .nanoseconds,
    scalingFactor: .mega,
    maxDuration: .seconds(20),
    maxIterations: 5
  )

  Benchmark("(a) bare pipeline: 3 middleware closures around 3 reducers", configuration: perAction)
  {
    @MainActor (benchmark: Benchmark) async in
    let state = BenchState()
    let pipeline = makeBarePipeline(state: state)
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations { pipeline(.increment) }
    benchmark.stopMeasurement()
    blackHole(state.count)
  }

  func burst(_ name: String, middlewares: Int, reducers: Int, logging: Bool) {
    Benchmark(name, configuration: perAction) { @MainActor benchmark in
      let count = benchmark.scaledIterations.count
      let store = makeStore(
        middlewares: middlewares, reducers: reducers, onLog: logging ? consumeLog : nil,
        capacity: count + 1)
      benchmark.startMeasurement()
      await Task.detached {
        for _ in 0..<count - 1 { store.dispatch(.increment) }
      }.value
      // FIFO: the last action's result means every action before it has run.
      let state = await store.dispatchWithResult(.increment)
      benchmark.stopMeasurement()
      precondition(state.count == count * reducers, "lost actions: \(state.count)")
      store.shutdown()
    }
  }

  burst("(b) store: 0 middlewares, 1 reducer", middlewares: 0, reducers: 1, logging: false)
  burst("(c) store: 3 middlewares, 3 reducers", middlewares: 3, reducers: 3, logging: false)
  burst("(d) store: 3 middlewares, 3 reducers, onLog", middlewares: 3, reducers: 3, logging: true)

  // The main actor stays responsive while background producers keep a default-capacity queue
  // full: a probe hops onto the main actor from a background task, again and again, and the
  // longest wait is the longest main-actor job (a 60 Hz frame is 16,667 µs).
  Benchmark(
    "flood: main-actor probe latency, 4 producers into a default-capacity store",
    configuration: .init(
      metrics: [
        .custom("probe p50 (µs)", useScalingFactor: false),
        .custom("probe p99 (µs)", useScalingFactor: false),
        .custom("probe max (µs)", useScalingFactor: false),
      ],
      scalingFactor: .one, maxDuration: .seconds(30), maxIterations: 5)
  ) { @MainActor benchmark in
    let perProducer = 100_000
    let store = makeStore(
      middlewares: 3, reducers: 3, onLog: nil,
      capacity: Store<BenchState, BenchAction>.defaultQueueCapacity)
    let latencies = await measureProbeLatencies(store: store, producers: 4, each: perProducer)
    let state = await store.dispatchWithResult(.add(0))
    precondition(state.count == 4 * perProducer * 3, "lost actions: \(state.count)")
    store.shutdown()
    let sorted = latencies.sorted()
    func micros(_ duration: Duration) -> Int {
      Int(duration.components.seconds) * 1_000_000
        + Int(duration.components.attoseconds / 1_000_000_000_000)
    }
    benchmark.measurement(.custom("probe p50 (µs)"), micros(sorted[sorted.count / 2]))
    benchmark.measurement(.custom("probe p99 (µs)"), micros(sorted[sorted.count * 99 / 100]))
    benchmark.measurement(.custom("probe max (µs)"), micros(sorted[sorted.count - 1]))
  }

  let latency = Benchmark.Configuration(
    metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds,
    scalingFactor: .kilo, maxDuration: .seconds(10), maxIterations: 5)

  Benchmark(
    "single dispatch latency: idle to completion, main-actor caller", configuration: latency
  ) { @MainActor benchmark in
    let store = makeStore(middlewares: 3, reducers: 3, onLog: nil, capacity: 256)
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations { await store.dispatchWithResult(.increment) }
    benchmark.stopMeasurement()
    store.shutdown()
  }

  // What `dispatch`'s nonisolation is for: a caller off the main actor (a network callback, a
  // background job) pays a hop there and one back for each result.
  Benchmark(
    "single dispatch latency: idle to completion, background caller", configuration: latency
  ) { @MainActor benchmark in
    let store = makeStore(middlewares: 3, reducers: 3, onLog: nil, capacity: 256)
    let count = benchmark.scaledIterations.count
    benchmark.startMeasurement()
    await Task.detached {
      for _ in 0..<count { await store.dispatchWithResult(.increment) }
    }.value
    benchmark.stopMeasurement()
    store.shutdown()
  }
}
