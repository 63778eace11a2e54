import ReduxCoreTesting
import Synchronization

/// Records every `persist` call of every writer, can fail the next calls, and can hold calls
/// until released: the stand-in for a database.
final class PersistRecorder: Sendable {
  struct Call: Equatable, Sendable {
    var writer: String
    var writes: [String]
    var deletions: [String]
  }

  private struct State {
    var failuresLeft = 0
    var isHolding = false
    var held: [CheckedContinuation<Void, Never>] = []
    var running = 0
    var mostRunning = 0
  }

  private let state = Mutex(State())
  private let recorder = CallRecorder<Call>()

  var calls: [Call] { recorder.calls }
  /// The most `persist` calls that ever ran at the same time.
  var mostRunning: Int { state.withLock { $0.mostRunning } }

  /// Makes the next `count` calls throw ``DiskError`` (after recording them).
  func failNext(_ count: Int) {
    state.withLock { $0.failuresLeft = count }
  }

  /// Holds every call from now on until ``release()``.
  func hold() {
    state.withLock { $0.isHolding = true }
  }

  func release() {
    let held = state.withLock { state in
      state.isHolding = false
      defer { state.held = [] }
      return state.held
    }
    for call in held { call.resume() }
  }

  /// Suspends until at least `count` calls were recorded.
  func waitForCalls(_ count: Int) async {
    await recorder.waitForCalls(count)
  }

  /// The `persist` function of a writer named `writer`.
  func persist<ID: Sendable & CustomStringConvertible, Entity: Identifiable & Sendable>(
    _ writer: String, describing describe: @escaping @Sendable (Entity) -> String
  ) -> @Sendable ([Entity], [ID]) async throws -> Void where Entity.ID == ID {
    { writes, deletions in
      try await self.record(
        Call(writer: writer, writes: writes.map(describe), deletions: deletions.map(\.description)))
    }
  }

  private func record(_ call: Call) async throws {
    let shouldHold = state.withLock { state in
      state.running += 1
      state.mostRunning = max(state.mostRunning, state.running)
      return state.isHolding
    }
    recorder.record(call)
    if shouldHold {
      await withCheckedContinuation { continuation in
        let released = state.withLock { state in
          guard state.isHolding else { return true }
          state.held.append(continuation)
          return false
        }
        if released { continuation.resume() }
      }
    }
    let fails = state.withLock { state in
      state.running -= 1
      guard state.failuresLeft > 0 else { return false }
      state.failuresLeft -= 1
      return true
    }
    if fails { throw DiskError() }
  }
}
