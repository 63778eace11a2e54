import DevTools
import DispatchFixtures
import Foundation
import ReduxCore
import SyncStoreStandIn

/// The dispatch contenders, each doing the same work per action (3 pass-through middlewares
/// around 3 counting reducers), run in one process:
///
/// - `DispatchContenders <contender> <actions>` runs one contender, for `Scripts/instructions.sh`
///   to count its instructions under callgrind at two sizes (the difference per action excludes
///   start-up and teardown, and does not depend on the machine's load). It reports on standard
///   error the refusals its producer retried and the process's peak resident memory: the burst
///   into a store whose queue holds it all grows with the burst, the default capacity does not.
/// - `DispatchContenders interleaved <rounds> <actions>` times every contender in each round, in
///   an order rotated from round to round, and prints the median of the per-round ratios, so that
///   the machine's load affects both sides of each ratio alike.
///
/// Contenders: `bare` (the closures folded, no store), `store` (a burst from a detached task into
/// a `Store` whose queue holds it), `store-default-capacity` (the same burst into a default
/// `Store`, a refused dispatch retried after a yield), `sync-store` (a ReSwift-style synchronous
/// store, ``SyncStore``), `sync-store-10` and `store-10` (with 10 subscribers: ReSwift's
/// per-action notifications, the store's `changes(of:)` streams), `stream-hop` (TinyRedux's
/// design: every action crosses an `AsyncStream` to a main-actor consumer), `store-policy` (the
/// store burst with every dispatch under an admission policy that holds none), `store-recorded`
/// (the store burst recorded by DevTools: every action and the state after it kept in the
/// recorder's ring buffer, no session file).
///
/// Built with `-Xswiftc -DPLAIN_BENCH_STATE`, every contender runs on a state without
/// `@Observable` (see ``BenchState``): `Scripts/instructions.sh` counts `bare` and `store` in
/// that build too, and its interleaved rounds say which state they ran on.
@main
enum DispatchContenders {
  static let contenders = [
    "bare", "store", "store-default-capacity", "sync-store", "store-10", "sync-store-10",
    "stream-hop", "store-policy", "store-recorded",
  ]

  static func main() {
    let arguments = CommandLine.arguments
    let usage = "usage: DispatchContenders <contender> <actions> | interleaved <rounds> <actions>"
    let numbers = arguments.dropFirst(2).compactMap { Int($0) }.filter { $0 > 0 }
    guard arguments.count >= 3, numbers.count == arguments.count - 2 else { fatalError(usage) }
    let mode = arguments[1]
    Task { @MainActor in
      if mode == "interleaved", numbers.count == 2 {
        await interleaved(rounds: numbers[0], actions: numbers[1])
      } else if numbers.count == 1 {
        let refused = await run(mode, numbers[0])
        // NB: stderr, so that the instruction counter's runs print nothing it reads.
        var usage = rusage()
        #if os(Linux)
          getrusage(RUSAGE_SELF.rawValue, &usage)
          let peakMegabytes = usage.ru_maxrss / 1024  // kilobytes on Linux
        #else
          getrusage(RUSAGE_SELF, &usage)
          let peakMegabytes = usage.ru_maxrss / 1_048_576  // bytes on Darwin
        #endif
        let report =
          "\(mode): \(numbers[0]) actions, \(refused) refusals retried, "
          + "peak RSS \(peakMegabytes) MB\n"
        FileHandle.standardError.write(Data(report.utf8))
      } else {
        fatalError(usage)
      }
      exit(0)
    }
    // NB: a run loop rather than an async main: valgrind 3.19 crashes in the `sigsuspend` of
    // libdispatch's `dispatch_main`, which an async main parks the main thread in.
    RunLoop.main.run()
  }

  /// Runs one contender; returns how many of its dispatches were refused (and retried).
  @MainActor @discardableResult
  static func run(_ contender: String, _ count: Int) async -> Int {
    switch contender {
    case "bare": bare(count)
    case "store": return await storeBurst(count, capacity: count + 1, subscribers: 0)
    case "store-default-capacity":
      return await storeBurst(
        count, capacity: Store<BenchState, BenchAction>.defaultQueueCapacity, subscribers: 0)
    case "store-10": return await storeBurst(count, capacity: count + 1, subscribers: 10)
    case "store-policy":
      // Every dispatch through the admission machine, none held: a zero-length throttle window.
      return await storeBurst(
        count, capacity: count + 1, subscribers: 0, policy: .throttle(.zero, trailing: false))
    case "store-recorded":
      return await storeBurst(count, capacity: count + 1, subscribers: 0, recorded: true)
    case "sync-store": syncStore(count, subscribers: 0)
    case "sync-store-10": syncStore(count, subscribers: 10)
    case "stream-hop": await streamHop(count)
    default: fatalError("unknown contender \(contender); known: \(contenders)")
    }
    return 0
  }

  /// 3 middleware closures around 3 reducer closures on the main actor, no store.
  @MainActor
  static func bare(_ count: Int) {
    let state = BenchState()
    let pipeline = makeBarePipeline(state: state)
    for _ in 0..<count { pipeline(.increment) }
    precondition(state.count == 3 * count, "lost actions: \(state.count)")
  }

  /// A burst from a detached task into a store with 3 pass-through middlewares and 3 reducers;
  /// a refused dispatch (default capacity) is retried after a yield, so every action runs.
  @MainActor
  static func storeBurst(
    _ count: Int, capacity: Int, subscribers: Int, policy: AdmissionPolicy? = nil,
    recorded: Bool = false
  ) async -> Int {
    let recorder =
      recorded
      ? DevToolsRecorder<BenchState, BenchAction, Int>(app: "bench") { $0.count } : nil
    let store = makeStore(
      middlewares: 3, reducers: 3, onLog: nil, capacity: capacity, inspector: recorder)
    recorder?.start(from: store)
    let listeners = (0..<subscribers).map { _ in
      let changes = store.changes(of: \.count)
      return Task { for await value in changes { blackHole(value) } }
    }
    await Task.detached {
      for _ in 0..<count - 1 {
        if let policy {
          while !store.dispatch(.increment, policy: policy) { await Task.yield() }
        } else {
          while !store.dispatch(.increment) { await Task.yield() }
        }
      }
    }.value
    let state = await store.dispatchWithResult(.increment)
    precondition(state.count == 3 * count, "lost actions: \(state.count)")
    let refused = store.refusedDispatchCount
    store.shutdown()
    for listener in listeners { await listener.value }
    return refused
  }

  /// The ReSwift-style synchronous store: each dispatch runs to the end on the caller's thread.
  @MainActor
  static func syncStore(_ count: Int, subscribers: Int) {
    let store = makeSyncStore(middlewares: 3, reducers: 3)
    for _ in 0..<subscribers { store.subscribe { blackHole($0.count) } }
    for _ in 0..<count { store.dispatch(BenchAction.increment) }
    precondition(
      store.state?.count == 3 * count, "lost actions: \(String(describing: store.state))")
  }

  /// TinyRedux's design: a background producer yields every action into an `AsyncStream`, and a
  /// main-actor task consumes it and runs the pipeline.
  @MainActor
  static func streamHop(_ count: Int) async {
    let state = BenchState()
    let pipeline = makeBarePipeline(state: state)
    let (stream, continuation) = AsyncStream.makeStream(of: BenchAction.self)
    let consumer = Task { @MainActor in
      for await action in stream { pipeline(action) }
    }
    await Task.detached {
      for _ in 0..<count { continuation.yield(.increment) }
      continuation.finish()
    }.value
    await consumer.value
    precondition(state.count == 3 * count, "lost actions: \(state.count)")
  }

  /// Times every contender once per round, in an order rotated each round, and prints each
  /// round's ns/action and the median of the per-round ratios.
  @MainActor
  static func interleaved(rounds: Int, actions: Int) async {
    var perRound: [[String: Double]] = []
    for round in 0..<rounds {
      var figures: [String: Double] = [:]
      let order = contenders.indices.map { contenders[($0 + round) % contenders.count] }
      for contender in order {
        // NB: the hop costs ~20 µs an action: a twentieth of the actions keeps a round short.
        let count = contender == "stream-hop" ? max(actions / 20, 1) : actions
        let start = ContinuousClock.now
        await run(contender, count)
        let elapsed = ContinuousClock.now - start
        figures[contender] =
          Double(elapsed.components.attoseconds) / 1e9 / Double(count)
          + Double(elapsed.components.seconds) * 1e9 / Double(count)
      }
      perRound.append(figures)
      let line = contenders.map { "\($0) \(String(format: "%.0f", figures[$0] ?? 0))" }
      print("round \(round + 1) ns/action: " + line.joined(separator: ", "))
    }
    func median(_ top: String, _ bottom: String) -> String {
      let ratios = perRound.map { ($0[top] ?? 0) / ($0[bottom] ?? 1) }.sorted()
      let middle = ratios[ratios.count / 2]
      return String(
        format: "%@ / %@ = %.2f (rounds: %.2f-%.2f)", top, bottom, middle, ratios.first ?? 0,
        ratios.last ?? 0)
    }
    #if PLAIN_BENCH_STATE
      let state = "a state without @Observable (-DPLAIN_BENCH_STATE)"
    #else
      let state = "an @Observable state"
    #endif
    print("median of \(rounds) interleaved rounds, on \(state):")
    print("  " + median("store", "bare") + "   target <= 2")
    print("  " + median("sync-store", "store") + "   target >= 4")
    print("  " + median("sync-store-10", "store-10") + "   target >= 10")
    print("  " + median("stream-hop", "store") + "   target >= 100")
    print("  " + median("store-default-capacity", "store"))
    print("  " + median("store-policy", "store") + "   target <= 2")
    print("  " + median("store-recorded", "store") + "   target <= 2")
  }
}

@inline(never)
func blackHole<T>(_ value: T) {}
