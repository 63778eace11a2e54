import DispatchFixtures
import ReduxCore
import Synchronization

@inline(never)
func blackHole<T>(_ value: T) {}

/// The benchmarks' `onLog`: receives every entry and keeps none.
@Sendable @inline(never)
func consumeLog(_ entry: Store<BenchState, BenchAction>.Log) {
  blackHole(entry)
}

/// Floods `store` from `producers` background tasks (`each` accepted actions apiece, retrying
/// a refused dispatch after a yield) while a background probe hops onto the main actor again
/// and again; returns how long each hop waited for the main actor.
func measureProbeLatencies(
  store: Store<BenchState, BenchAction>, producers: Int, each: Int
) async -> [Duration] {
  let flooding = ProducerCount(producers)
  let probe = Task.detached {
    var latencies: [Duration] = []
    while flooding.running.load(ordering: .relaxed) > 0 {
      let start = ContinuousClock.now
      // NB: the wait ends when the job starts on the main actor; the way back to a busy
      // cooperative pool (where the producers spin) is not the main actor's latency.
      latencies.append(await MainActor.run { ContinuousClock.now - start })
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
