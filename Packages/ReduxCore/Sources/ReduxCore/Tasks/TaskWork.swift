import Synchronization

/// One task's work: its operation with its failure handler, or its refusal, run exactly once.
///
/// NB: the closures are handed over through a lock the runner empties, so that everything they
/// captured is released before the task's end is reported to those waiting for it.
final class TaskWork: Sendable {
  private struct Handlers {
    let operation: () async throws -> Void
    let onFailure: (any Error) async -> Void
    let onRefusal: ((TaskRefusal) async -> Void)?
  }

  private let handlers: Mutex<Handlers?>
  /// Whether someone listens for a refusal (tasks run without a policy are not told).
  let isRefusalObserved: Bool

  init(
    operation: sending @escaping () async throws -> Void,
    onFailure: sending @escaping (any Error) async -> Void,
    onRefusal: sending ((TaskRefusal) async -> Void)?
  ) {
    isRefusalObserved = onRefusal != nil
    handlers = Mutex(Handlers(operation: operation, onFailure: onFailure, onRefusal: onRefusal))
  }

  /// Runs the operation, on the caller's actor; its failure, other than the cancellation of a
  /// cancelled task, goes to `onFailure`.
  func execute() async {
    guard let handlers = handlers.withLock({ $0.take() }) else { return }
    do {
      try await handlers.operation()
    } catch is CancellationError where Task.isCancelled {
      // Cancellation is how tasks are stopped, not a failure.
    } catch {
      await handlers.onFailure(error)
    }
  }

  /// Tells `onRefusal`, on `isolation`, that the operation will never run.
  static func deliver(
    _ refusal: TaskRefusal, to work: TaskWork, on isolation: isolated (any Actor)?
  ) async {
    guard let handlers = work.handlers.withLock({ $0.take() }) else { return }
    await handlers.onRefusal?(refusal)
  }

  /// Runs the operation on `isolation`, for a task started away from its caller (released by a
  /// policy's timer).
  static func execute(_ work: TaskWork, on isolation: isolated (any Actor)?) async {
    await work.execute()
  }
}
