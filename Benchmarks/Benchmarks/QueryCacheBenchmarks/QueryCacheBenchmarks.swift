import Benchmark
import QueryCache
import ReduxCoreTesting
import Synchronization

@inline(never)
func blackHole<T>(_ value: T) {}

final class Counter: Sendable {
  private let count = Mutex(0)
  var value: Int { count.withLock { $0 } }
  func increment() { count.withLock { $0 += 1 } }
}

let benchmarks: @Sendable () -> Void = {
  let perOperation = Benchmark.Configuration(
    metrics: [.wallClock, .mallocCountTotal], timeUnits: .nanoseconds, scalingFactor: .kilo,
    maxDuration: .seconds(10), maxIterations: 10)

  // The baseline: the lookup a hand-rolled cache does.
  Benchmark("fresh cache hit: Dictionary lookup", configuration: perOperation) { benchmark in
    let cache: [QueryKey: String] = [["user", 1]: "Alice"]
    let key: QueryKey = ["user", 1]
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations { blackHole(cache[key]) }
    benchmark.stopMeasurement()
  }

  Benchmark("fresh cache hit: QueryClient.fetch", configuration: perOperation) { benchmark in
    let client = QueryClient(clock: ManualClock())
    let options = QueryOptions(staleTime: .seconds(3_600))
    _ = await client.fetch(queryKey: ["user", 1], options: options) { "Alice" }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      blackHole(await client.fetch(queryKey: ["user", 1], options: options) { "Bob" })
    }
    benchmark.stopMeasurement()
  }

  Benchmark(
    "10k concurrent fetches of one key: queryFn calls",
    configuration: .init(
      metrics: [.custom("queryFn calls", useScalingFactor: false)], maxIterations: 3)
  ) { benchmark in
    let client = QueryClient(clock: ManualClock())
    let calls = Counter()
    await withDiscardingTaskGroup { group in
      for _ in 0..<10_000 {
        group.addTask {
          _ = await client.fetch(queryKey: "shared", forceRefresh: true) {
            calls.increment()
            try await Task.sleep(for: .milliseconds(200))  // a slow network call: all join it
            return 1
          }
        }
      }
    }
    benchmark.measurement(.custom("queryFn calls", useScalingFactor: false), calls.value)
  }

  Benchmark(
    "100k one-off keys after gcTime: entries left",
    configuration: .init(
      metrics: [.custom("entries left", useScalingFactor: false)], maxIterations: 1)
  ) { benchmark in
    let clock = ManualClock()
    let client = QueryClient(clock: clock)
    let options = QueryOptions(gcTime: .seconds(60))
    for index in 0..<100_000 {
      _ = await client.fetch(queryKey: ["item", index], options: options) { index }
    }
    await clock.advance(by: .seconds(60))
    var left = await client.cache.count
    for _ in 0..<10_000 where left > 0 {
      await Task.yield()
      left = await client.cache.count
    }
    benchmark.measurement(.custom("entries left", useScalingFactor: false), left)
  }
}
