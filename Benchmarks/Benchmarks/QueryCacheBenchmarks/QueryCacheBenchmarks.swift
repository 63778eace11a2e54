import Benchmark
import QueryCache
import ReduxCoreTesting
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

@inline(never)
func blackHole<T>(_ value: T) {}

/// An `Int` the optimizer cannot see through, so that a key built per call is built per call.
@inline(never)
func opaque(_ value: Int) -> Int { value }

final class Counter: Sendable {
  private let count = Mutex(0)
  var value: Int { count.withLock { $0 } }
  func increment() { count.withLock { $0 += 1 } }
}

/// A hand-rolled cache behind an actor: what a fresh hit cost before the fast path (two thread
/// hops from the main actor).
actor DictionaryActor {
  private var storage: [QueryKey: String] = [:]
  func value(_ key: QueryKey) -> String? { storage[key] }
  func set(_ key: QueryKey, _ value: String) { storage[key] = value }
}

/// How many rounds ran: each round starts the rotation of the contenders one further.
let roundsRun = Atomic<Int>(0)

/// The fresh-hit contenders, each timed over the same number of hits in one round. Every pair
/// that a ratio divides does the same work: a key prebuilt on both sides, or built per call on
/// both sides.
enum FreshHit: String, CaseIterable {
  case dictionaryPrebuilt = "Dictionary, prebuilt key"
  case dictionaryPerCall = "Dictionary, QueryKey(\"user\", id) per call"
  case actorDictionaryPrebuilt = "actor-wrapped Dictionary, prebuilt key"
  case fetchPrebuilt = "fetch, prebuilt key"
  case fetchPerCall = "fetch, QueryKey(\"user\", id) per call"
  case fetchLiteralPerCall = "fetch, [\"user\", id] literal per call"
  case freshQueryDataPrebuilt = "freshQueryData, prebuilt key"

  /// The ratios reported, numerator over denominator, both measured in the same round.
  static let ratios: [(FreshHit, FreshHit)] = [
    (.fetchPrebuilt, .dictionaryPrebuilt),
    (.fetchPerCall, .dictionaryPerCall),
    (.actorDictionaryPrebuilt, .dictionaryPrebuilt),
    (.freshQueryDataPrebuilt, .dictionaryPrebuilt),
  ]
}

/// Times `hits` fresh hits of each contender, in an order rotated by `round`, on the caller's
/// actor (nonisolated, nonsending: the main actor or a background task, as the caller is).
/// Returns nanoseconds per hit.
func freshHitRound(
  client: QueryClient, cache: DictionaryActor, hits: Int, round: Int
) async -> [FreshHit: Double] {
  let options = QueryOptions(staleTime: .seconds(3_600))
  let key = QueryKey("user", 1)
  let dictionary: [QueryKey: String] = [key: "Alice"]
  let id = opaque(1)
  let clock = ContinuousClock()
  var perHit: [FreshHit: Double] = [:]
  let order = FreshHit.allCases
  for index in order.indices {
    let contender = order[(index + round) % order.count]
    let start = clock.now
    switch contender {
    case .dictionaryPrebuilt:
      for _ in 0..<hits { blackHole(dictionary[key]) }
    case .dictionaryPerCall:
      for _ in 0..<hits { blackHole(dictionary[QueryKey("user", id)]) }
    case .actorDictionaryPrebuilt:
      for _ in 0..<hits { blackHole(await cache.value(key)) }
    case .fetchPrebuilt:
      for _ in 0..<hits {
        blackHole(await client.fetch(queryKey: key, options: options) { "Bob" })
      }
    case .fetchPerCall:
      for _ in 0..<hits {
        blackHole(await client.fetch(queryKey: QueryKey("user", id), options: options) { "Bob" })
      }
    case .fetchLiteralPerCall:
      for _ in 0..<hits {
        blackHole(await client.fetch(queryKey: ["user", id], options: options) { "Bob" })
      }
    case .freshQueryDataPrebuilt:
      for _ in 0..<hits {
        blackHole(client.freshQueryData(key, as: String.self, staleTime: .seconds(3_600)))
      }
    }
    let elapsed = start.duration(to: clock.now)
    perHit[contender] = Double(elapsed.attoseconds) / 1e9 / Double(hits)
  }
  return perHit
}

/// Records one round: nanoseconds per hit of each contender, and each ratio ×100.
func record(_ perHit: [FreshHit: Double], in benchmark: Benchmark) {
  for contender in FreshHit.allCases {
    benchmark.measurement(
      .custom("\(contender.rawValue) (ns/hit)", useScalingFactor: false),
      Int(perHit[contender, default: 0].rounded()))
  }
  for (top, bottom) in FreshHit.ratios {
    let ratio = perHit[top, default: 0] / max(perHit[bottom, default: 1], 1e-3)
    benchmark.measurement(
      .custom("\(top.rawValue) / \(bottom.rawValue) (x100)", useScalingFactor: false),
      Int((ratio * 100).rounded()))
  }
}

let freshHitMetrics: [BenchmarkMetric] =
  FreshHit.allCases.map { .custom("\($0.rawValue) (ns/hit)", useScalingFactor: false) }
  + FreshHit.ratios.map {
    .custom("\($0.0.rawValue) / \($0.1.rawValue) (x100)", useScalingFactor: false)
  }

/// A client holding a fresh `"Alice"` under `QueryKey("user", 1)`, and the actor baseline.
func freshHitFixtures() async -> (QueryClient, DictionaryActor) {
  let client = QueryClient(clock: ManualClock())
  _ = await client.fetch(
    queryKey: QueryKey("user", 1), options: QueryOptions(staleTime: .seconds(3_600))
  ) { "Alice" }
  let cache = DictionaryActor()
  await cache.set(QueryKey("user", 1), "Alice")
  return (client, cache)
}

// MARK: - Memory

/// The bytes the process's allocator holds in use (glibc's `malloc_info` totals: memory taken
/// from the system, less free chunks), after returning what it can to the system; `nil` where
/// that is not available.
func heapBytesInUse() -> Int? {
  #if canImport(Glibc)
    typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
    typealias MallocTrim = @convention(c) (Int) -> Int32
    guard let infoSymbol = dlsym(nil, "malloc_info"), let trimSymbol = dlsym(nil, "malloc_trim")
    else { return nil }
    _ = unsafeBitCast(trimSymbol, to: MallocTrim.self)(0)
    var buffer: UnsafeMutablePointer<CChar>?
    var length = 0
    guard let stream = open_memstream(&buffer, &length) else { return nil }
    _ = unsafeBitCast(infoSymbol, to: MallocInfo.self)(0, stream)
    fclose(stream)
    guard let buffer else { return nil }
    defer { free(buffer) }
    let xml = String(cString: buffer)
    // NB: the process-wide totals follow the last arena's </heap>.
    guard let totals = xml.split(separator: "</heap>").last else { return nil }
    func size(of tag: String) -> Int {
      guard let range = totals.firstRange(of: tag) else { return 0 }
      let rest = totals[range.upperBound...]
      guard let sizeRange = rest.firstRange(of: "size=\"") else { return 0 }
      return Int(rest[sizeRange.upperBound...].prefix { $0.isNumber }) ?? 0
    }
    let free = size(of: "<total type=\"fast\"") + size(of: "<total type=\"rest\"")
    return size(of: "<system type=\"current\"") - free + size(of: "<total type=\"mmap\"")
  #else
    return nil
  #endif
}

/// Lets the gc timers' tasks end, and the allocator settle.
func settle() async {
  for _ in 0..<100 { await Task.yield() }
  try? await Task.sleep(for: .milliseconds(200))
}

let benchmarks: @Sendable () -> Void = {
  // Fresh hits: every contender in each round (an iteration), in a rotated order, so that the
  // machine's load weighs on both sides of each ratio alike.
  let rounds = Benchmark.Configuration(
    metrics: freshHitMetrics, maxDuration: .seconds(30), maxIterations: 15)

  Benchmark("fresh cache hit from the main actor, interleaved", configuration: rounds) {
    benchmark in
    let (client, cache) = await freshHitFixtures()
    for _ in benchmark.scaledIterations {
      let round = roundsRun.add(1, ordering: .relaxed).newValue
      let perHit = await Task { @MainActor in
        await freshHitRound(client: client, cache: cache, hits: 2_000, round: round)
      }.value
      record(perHit, in: benchmark)
    }
  }

  Benchmark("fresh cache hit from a background task, interleaved", configuration: rounds) {
    benchmark in
    let (client, cache) = await freshHitFixtures()
    for _ in benchmark.scaledIterations {
      let round = roundsRun.add(1, ordering: .relaxed).newValue
      let perHit = await Task.detached {
        await freshHitRound(client: client, cache: cache, hits: 2_000, round: round)
      }.value
      record(perHit, in: benchmark)
    }
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

  // Memory after gc: the bytes the client still holds per key once 100k one-off keys were
  // collected (what releasing it then frees; the test clock, kept alive, holds its own buffer
  // of 100k sleepers), against a plain Dictionary of the same keys emptied by removals (which
  // keeps its capacity, as the cache's dictionaries did), both measured in this process.
  let memoryMetrics: [BenchmarkMetric] = [
    .custom("entries left", useScalingFactor: false),
    .custom("QueryClient, 100k keys cached (B/key)", useScalingFactor: false),
    .custom("QueryClient, after gc of 100k keys (B/key)", useScalingFactor: false),
    .custom("baseline: Dictionary of 100k keys, emptied (B/key)", useScalingFactor: false),
  ]
  Benchmark(
    "100k one-off keys after gcTime: entries left and bytes in use per key",
    configuration: .init(metrics: memoryMetrics, maxIterations: 1)
  ) { benchmark in
    let keys = 100_000
    func perKey(_ bytes: Int?, from start: Int?) -> Int {
      guard let bytes, let start else { return -1 }
      return (bytes - start) / keys
    }
    await settle()
    var start = heapBytesInUse()
    var dictionary: [QueryKey: Int] = [:]
    for index in 0..<keys { dictionary[QueryKey("item", index)] = index }
    for index in 0..<keys { dictionary[QueryKey("item", index)] = nil }
    let dictionaryKept = perKey(heapBytesInUse(), from: start)
    blackHole(dictionary)

    await settle()
    start = heapBytesInUse()
    let clock = ManualClock()
    var client: QueryClient? = QueryClient(clock: clock)
    let options = QueryOptions(gcTime: .seconds(60))
    for index in 0..<keys {
      _ = await client!.fetch(queryKey: QueryKey("item", index), options: options) { index }
    }
    let filled = perKey(heapBytesInUse(), from: start)
    await clock.advance(by: .seconds(60))
    var left = await client!.cache.count
    for _ in 0..<10_000 where left > 0 {
      await Task.yield()
      left = await client!.cache.count
    }
    await settle()
    let afterGc = heapBytesInUse()
    client = nil
    await settle()
    let collected = perKey(afterGc, from: heapBytesInUse())
    blackHole(clock)
    benchmark.measurement(.custom("entries left", useScalingFactor: false), left)
    benchmark.measurement(
      .custom("QueryClient, 100k keys cached (B/key)", useScalingFactor: false), filled)
    benchmark.measurement(
      .custom("QueryClient, after gc of 100k keys (B/key)", useScalingFactor: false), collected)
    benchmark.measurement(
      .custom("baseline: Dictionary of 100k keys, emptied (B/key)", useScalingFactor: false),
      dictionaryKept)
  }
}
