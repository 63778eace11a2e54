import Observation

/// A live subscription to the store's state, owned by the worker.
@MainActor
protocol StateSubscription: AnyObject {
  func finish()
}

/// Emits a selected value whenever Observation reports a change to what `select` read and the
/// value differs from the last one emitted.
///
/// A change schedules one main-actor refresh, which runs after the batch being processed, so a
/// burst of actions emits at most once per batch.
@MainActor
final class SelectionSubscription<ReadOnly: ReduxReadOnlyState, Value: Equatable & Sendable>:
  StateSubscription
{
  private let readOnly: ReadOnly
  private let select: (ReadOnly) -> Value
  private let continuation: AsyncStream<Value>.Continuation
  private var last: Value?
  private var isFinished = false

  init(
    readOnly: ReadOnly, select: @escaping (ReadOnly) -> Value,
    _ continuation: AsyncStream<Value>.Continuation
  ) {
    self.readOnly = readOnly
    self.select = select
    self.continuation = continuation
  }

  /// Reads the selection under observation and emits it if it changed.
  func refresh() {
    guard !isFinished else { return }
    let value = withObservationTracking {
      select(readOnly)
    } onChange: { [weak self] in
      Task { @MainActor in self?.refresh() }
    }
    guard value != last else { return }
    last = value
    continuation.yield(value)
  }

  func finish() {
    isFinished = true
    continuation.finish()
  }
}
