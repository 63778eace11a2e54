import Synchronization

/// Counts the calls of a query function and can hold them until released.
final class QueryFunction<Value: Sendable>: Sendable {
  private struct State {
    var calls = 0
    var isHolding = false
    var held: [CheckedContinuation<Void, Never>] = []
    var results: [Result<Value, any Error>]
    /// Tests waiting for this many calls.
    var callWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
  }

  private let state: Mutex<State>

  /// A function returning `results` in turn (the last one repeats).
  init(_ results: Result<Value, any Error>...) {
    state = Mutex(State(results: results))
  }

  var calls: Int { state.withLock { $0.calls } }

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
    await withCheckedContinuation { continuation in
      let isReached = state.withLock { state in
        guard state.calls < count else { return true }
        state.callWaiters.append((count, continuation))
        return false
      }
      if isReached { continuation.resume() }
    }
  }

  var function: @Sendable () async throws -> Value {
    { try await self.call() }
  }

  private func call() async throws -> Value {
    let (result, holds, reached) = state.withLock { state in
      state.calls += 1
      let result = state.results.count > 1 ? state.results.removeFirst() : state.results[0]
      let calls = state.calls
      let reached = state.callWaiters.filter { $0.count <= calls }.map(\.continuation)
      state.callWaiters.removeAll { $0.count <= calls }
      return (result, state.isHolding, reached)
    }
    for waiter in reached { waiter.resume() }
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
