import Dispatch
import Foundation
import Observation
import ReduxCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// How long other main-actor work waits while producers flood a store: a job posted to the main
/// actor from a plain thread (not a task) every 1 ms, from the post to the moment it runs,
/// beside a control thread that sleeps 1 ms in a loop and records its own oversleep (what the
/// OS scheduler alone costs under the same load).
///
///     MainActorLatency [--seconds S] [--producers N] [--modes idle,fire,retry]
///                      [--posts queue,task] [--main dispatch|runloop] [--trace DIRECTORY]
///
/// Modes (each for S seconds, default 3, with N producer tasks, default 4, on a `Store` of the
/// default queue capacity with one trivial reducer):
/// - `idle`: no producer (the baseline).
/// - `fire`: each producer loops `store.dispatch(.tick)` (fire-and-forget, a refusal ignored).
/// - `retry`: each producer loops `do { try store.tryDispatch(.tick) } catch { await
///   Task.yield() }`.
///
/// Posts: `queue` posts with `DispatchQueue.main.async` (the main actor's executor on Linux),
/// `task` with `Task { @MainActor in … }`. `--main dispatch` parks the main thread in
/// `dispatchMain()`, as an `async` main does (the board's); `runloop` runs `RunLoop.main`.
///
/// Each line prints p50, p99 and max of the posted job's delay and of the control thread's
/// oversleep, in milliseconds, then the dispatches accepted and refused, and how many actions
/// the drain ran while the posted job waited (p99, max): the main actor's work in the way.
/// `--trace` writes each posted job's post and run times (monotonic nanoseconds) to
/// `DIRECTORY/<mode>-<post>.txt`, to set against other traces of the same run.
/// Not a package-benchmark suite: latencies under load, not a throughput.
@main
enum MainActorLatency {
  static func main() {
    let options = Options(CommandLine.arguments.dropFirst())
    let driver = Thread {
      print(
        "main actor latency, \(options.seconds) s a run, \(options.producers) producers, "
          + "queue capacity \(Store<LatencyState, LatencyAction>.defaultQueueCapacity), "
          + "main thread in \(options.mainLoop), \(ProcessInfo.processInfo.activeProcessorCount) "
          + "cores; milliseconds")
      for mode in options.modes {
        for post in options.posts {
          print(run(mode, post: post, options: options))
        }
      }
      exit(0)
    }
    driver.start()
    if options.mainLoop == "runloop" {
      while true { RunLoop.main.run() }
    } else {
      dispatchMain()
    }
  }

  // MARK: - One run

  static func run(_ mode: String, post: String, options: Options) -> String {
    let store = onMain {
      Store<LatencyState, LatencyAction>(
        initialState: LatencyState(),
        reducers: [
          AnyReducer(id: "count") { context in
            context.state.count &+= 1
            processed.add(1, ordering: .relaxed)
          }
        ])
    }
    let counters = Counters()
    let processedAtStart = processed.load(ordering: .relaxed)
    let posted = Samples()
    let control = Samples()
    let waitedActions = Samples()

    if mode != "idle" {
      for _ in 0..<options.producers {
        counters.liveProducers.add(1, ordering: .relaxed)
        Task.detached {
          var admitted = 0
          while counters.running.load(ordering: .relaxed) {
            if mode == "retry" {
              do {
                try store.tryDispatch(.tick)
                admitted += 1
              } catch {
                await Task.yield()
              }
            } else if store.dispatch(.tick) {
              admitted += 1
            }
          }
          counters.accepted.add(admitted, ordering: .relaxed)
          counters.liveProducers.subtract(1, ordering: .relaxed)
        }
      }
    }
    let end = now() + Int64(options.seconds * 1e9)
    let poster = Thread {
      while now() < end {
        let start = now()
        let processedBefore = processed.load(ordering: .relaxed)
        if post == "task" {
          Task { @MainActor in
            posted.append(now() - start, postedAt: start)
            waitedActions.append(Int64(processed.load(ordering: .relaxed) - processedBefore))
          }
        } else {
          DispatchQueue.main.async {
            posted.append(now() - start, postedAt: start)
            waitedActions.append(Int64(processed.load(ordering: .relaxed) - processedBefore))
          }
        }
        usleep(1000)
      }
    }
    let controller = Thread {
      while now() < end {
        let start = now()
        usleep(1000)
        control.append(now() - start - 1_000_000)
      }
    }
    poster.start()
    controller.start()
    while now() < end + 20_000_000 { usleep(10_000) }
    counters.running.store(false, ordering: .relaxed)
    while counters.liveProducers.load(ordering: .relaxed) > 0 { usleep(1000) }
    // Every accepted action runs: wait for the last one, then end the store.
    let drained = DispatchSemaphore(value: 0)
    while !store.dispatch(.tick, completion: { _ in drained.signal() }) { usleep(1000) }
    drained.wait()
    let ran = processed.load(ordering: .relaxed) - processedAtStart - 1
    let refused = store.refusedDispatchCount
    onMain { store.shutdown() }
    while now() < end + 100_000_000 { usleep(10_000) }  // late posted jobs land

    if let directory = options.traceDirectory {
      posted.write(to: "\(directory)/\(mode)-\(post).txt")
    }
    let admitted = counters.accepted.load(ordering: .relaxed)
    precondition(ran == admitted, "\(admitted) dispatches accepted, \(ran) ran")
    let share = admitted + refused == 0 ? 0 : 100 * Double(refused) / Double(admitted + refused)
    return "\(pad(mode, 5)) \(pad(post, 5)) posted job "
      + posted.summary(scale: 1e6) + " | control thread " + control.summary(scale: 1e6)
      + " | accepted \(admitted), refused \(refused) (\(String(format: "%.1f", share)) %)"
      + " | actions run while a job waited: "
      + waitedActions.summary(scale: 1, quantiles: [0.99], format: "%.0f")
  }

  // MARK: - Helpers

  /// Actions the reducer ran, in every store (read from any thread).
  static let processed = Atomic<Int>(0)

  /// Nanoseconds of the monotonic clock.
  static func now() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }

  /// Runs `body` on the main actor from a plain thread, and waits for it.
  static func onMain<T: Sendable>(_ body: @escaping @MainActor @Sendable () -> T) -> T {
    let result = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.main.async {
      let value = MainActor.assumeIsolated { body() }
      result.withLock { $0 = value }
      done.signal()
    }
    done.wait()
    return result.withLock { $0! }
  }

  static func pad(_ text: String, _ width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - text.count))
  }
}

/// What the producers and the driver share.
final class Counters: Sendable {
  let running = Atomic<Bool>(true)
  let accepted = Atomic<Int>(0)
  let liveProducers = Atomic<Int>(0)
}

/// The command line: see ``MainActorLatency``.
struct Options {
  var seconds = 3.0
  var producers = 4
  var modes = ["idle", "fire", "retry"]
  var posts = ["queue", "task"]
  var mainLoop = "dispatch"
  var traceDirectory: String?

  init(_ arguments: ArraySlice<String>) {
    var arguments = arguments
    while let name = arguments.popFirst() {
      guard let value = arguments.popFirst() else { fatalError("\(name) needs a value") }
      switch name {
      case "--seconds": seconds = Double(value) ?? seconds
      case "--producers": producers = Int(value) ?? producers
      case "--modes": modes = value.split(separator: ",").map(String.init)
      case "--posts": posts = value.split(separator: ",").map(String.init)
      case "--main": mainLoop = value
      case "--trace": traceDirectory = value
      default: fatalError("unknown option \(name); see MainActorLatency.swift")
      }
    }
    for mode in modes where !["idle", "fire", "retry"].contains(mode) {
      fatalError("unknown mode \(mode)")
    }
    for post in posts where !["queue", "task"].contains(post) {
      fatalError("unknown post \(post)")
    }
  }
}

/// Samples appended from any thread.
final class Samples: Sendable {
  private let values = Mutex<[Int64]>([])
  /// When each value's measurement began, if given.
  private let starts = Mutex<[Int64]>([])

  init() {
    values.withLock { $0.reserveCapacity(10_000) }
  }

  func append(_ value: Int64, postedAt start: Int64? = nil) {
    values.withLock { $0.append(value) }
    if let start { starts.withLock { $0.append(start) } }
  }

  /// One line per value: its start and its end (start + value).
  func write(to path: String) {
    let values = values.withLock { $0 }
    let starts = starts.withLock { $0 }
    let lines = zip(starts, values).map { "\($0) \($0 + $1)\n" }
    _ = FileManager.default.createFile(atPath: path, contents: Data(lines.joined().utf8))
  }

  /// `p50 …, p99 …, max … (n)`, each value divided by `scale`.
  func summary(
    scale: Double, quantiles: [Double] = [0.5, 0.99], format: String = "%.2f"
  ) -> String {
    let sorted = values.withLock { $0 }.sorted()
    guard let last = sorted.last else { return "no samples" }
    func at(_ quantile: Double) -> String {
      let index = min(sorted.count - 1, Int(Double(sorted.count) * quantile))
      return String(format: format, Double(sorted[index]) / scale)
    }
    let parts = quantiles.map { "p\(Int($0 * 100)) \(at($0))" }
    return parts.joined(separator: " ") + " max " + String(format: format, Double(last) / scale)
      + " (n \(sorted.count))"
  }
}

// MARK: - The store's types

@MainActor
@Observable
final class LatencyState: ReduxState {
  var count = 0
  var readOnly: ReadOnly { ReadOnly(self) }

  @MainActor
  @Observable
  final class ReadOnly: ReduxReadOnlyState {
    private let state: LatencyState
    init(_ state: LatencyState) { self.state = state }
    var count: Int { state.count }
  }
}

enum LatencyAction: ReduxAction {
  case tick

  var id: String { "tick" }
}
