import ReduxCoreTesting
import Synchronization

/// Counts the calls of a query function and can hold them until released.
final class QueryFunction<Value: Sendable>: Sendable {
  private struct State {
    var isHolding = false
    var held: [CheckedContinuation<Void, Never>] = []
    var results: [Result<Value, any Error>]
  }

  private let state: Mutex<State>
  private let recorder = CallRecorder<Void>()

  /// A function returning `results` in turn (the last one repeats).
  init(_ results: Result<Value, any Error>...) {
    state = Mutex(State(results: results))
  }

  var calls: Int { recorder.count }

  func hold() { state.withLock { $0.isHolding = true } }

  func release() {
    let held = state.withLock { state in
      state.isHolding = false
      defer { state.held = [] }
      return state.held
    }
    for call in held { call.resume() }
  }

  /// Suspends until `count` calls started.
  func waitForCalls(_ count: Int) async {
    await recorder.waitForCalls(count)
  }

  var function: @Sendable () async throws -> Value {
    { try await self.call() }
  }

  private func call() async throws -> Value {
    let (result, holds) = state.withLock { state in
      let result = state.results.count > 1 ? state.results.removeFirst() : state.results[0]
      return (result, state.isHolding)
    }
    recorder.record()
    if holds {
      await withCheckedContinuation { continuation in
        let released = state.withLock { state in
          guard state.isHolding else { return true }
          state.held.append(continuation)
          return false
        }
        if released { continuation.resume() }
      }
    }
    return try result.get()
  }
}

struct NetworkError: Error, Equatable {}

/// A count shared with concurrent work.
final class Counter: Sendable {
  private let count = Mutex(0)
  var value: Int { count.withLock { $0 } }
  func increment() { count.withLock { $0 += 1 } }
}
