import DispatchFixtures
import Foundation
import ReduxCore

/// Runs one dispatch contender for a given number of actions, for `Scripts/instructions.sh` to
/// count its instructions under callgrind at two sizes: the difference divided by the difference
/// in actions is the cost of one action, start-up and teardown excluded, whatever the machine's
/// load.
///
/// Usage: `DispatchInstructions bare|store|store-default-capacity <actions>`
@main
enum DispatchInstructions {
  static func main() {
    let arguments = CommandLine.arguments
    guard arguments.count == 3, let count = Int(arguments[2]), count > 0 else {
      fatalError("usage: DispatchInstructions bare|store|store-default-capacity <actions>")
    }
    let contender = arguments[1]
    Task { @MainActor in
      switch contender {
      case "bare": bare(count)
      case "store": await storeBurst(count, capacity: count + 1)
      case "store-default-capacity":
        await storeBurst(count, capacity: Store<BenchState, BenchAction>.defaultQueueCapacity)
      default: fatalError("unknown contender \(contender)")
      }
      exit(0)
    }
    // NB: a run loop rather than an async main: valgrind 3.19 crashes in the `sigsuspend` of
    // libdispatch's `dispatch_main`, which an async main parks the main thread in.
    RunLoop.main.run()
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
  static func storeBurst(_ count: Int, capacity: Int) async {
    let store = makeStore(middlewares: 3, reducers: 3, onLog: nil, capacity: capacity)
    await Task.detached {
      for _ in 0..<count - 1 {
        while (try? store.tryDispatch(.increment)) == nil { await Task.yield() }
      }
    }.value
    let state = await store.dispatchWithResult(.increment)
    precondition(state.count == 3 * count, "lost actions: \(state.count)")
    store.shutdown()
  }
}
