public import ReduxCore
import Synchronization

/// The side effect an action asks for: ViewFeature's `ActionTask`, run on ReduxCore's
/// ``/ReduxCore/TaskManager``.
///
/// ```swift
/// case .load:
///   state.isLoading = true
///   return .run(id: "load") { send in
///     await send(.loaded(try await api.items()))
///   }
///   .catch { error, state in state.error = "\(error)" }
/// case .stop:
///   return .cancel(id: "load")
/// ```
///
/// A `.run` started under the id of a running task cancels and replaces it. Its `Send` does
/// nothing once the task is cancelled, so a replaced or cancelled effect cannot change state.
/// `.run(id:policy:)` admits it under an ``/ReduxCore/AdmissionPolicy`` instead:
///
/// ```swift
/// case .queryChanged(let text):
///   state.query = text
///   return .run(id: "search", policy: .debounce(.milliseconds(300))) { send in
///     await send(.results(try await api.search(text)))
///   }
/// ```
public struct ActionTask<Action: Sendable, State> {
  /// The work of a `.run` task. It may send actions back to its store.
  public typealias Operation = @Sendable (Send<Action>) async throws -> Void
  /// Writes a failed task's error into the state, on the MainActor.
  public typealias ErrorHandler = @MainActor (any Error, inout State) -> Void

  /// What a task does, for inspection (tests, `transform`).
  public enum Kind: Equatable {
    /// No side effect.
    case none
    /// Runs work under this id.
    case run(id: AnyHashable)
    /// Cancels the running task with this id.
    case cancel(id: AnyHashable)
  }

  enum Storage {
    case none
    case run(id: any TaskID, policy: AdmissionPolicy?, operation: Operation, onError: ErrorHandler?)
    case cancel(id: any TaskID)
  }

  let storage: Storage

  /// No side effect.
  public static var none: Self { Self(storage: .none) }

  /// Runs `operation` under `id`, replacing a running task with the same id.
  ///
  /// - Parameters:
  ///   - id: The id to cancel or replace the task by.
  ///   - operation: The work; it sends actions through the `Send` it receives.
  /// - Returns: The task.
  public static func run(id: some TaskID, operation: @escaping Operation) -> Self {
    Self(storage: .run(id: id, policy: nil, operation: operation, onError: nil))
  }

  /// Runs `operation` under `id` when `policy` admits it: `debounce` holds it until the typing
  /// stops, `throttle` lets one through per interval, `limit(n)` caps how many run at once,
  /// `latest` is the same as `.run(id:operation:)`. A task the policy turns away never runs;
  /// the store logs why (at debug level when a newer one superseded it).
  ///
  /// - Parameters:
  ///   - id: The id the policy counts by; `.cancel(id:)` cancels it, held or running.
  ///   - policy: How tasks with this id are admitted, timed on the store's task manager's clock.
  ///   - operation: The work; it sends actions through the `Send` it receives.
  /// - Returns: The task.
  public static func run(
    id: some TaskID, policy: AdmissionPolicy, operation: @escaping Operation
  ) -> Self {
    Self(storage: .run(id: id, policy: policy, operation: operation, onError: nil))
  }

  /// Runs `operation` under `id`; for work that sends nothing back.
  ///
  /// - Parameters:
  ///   - id: The id to cancel or replace the task by.
  ///   - operation: The work.
  /// - Returns: The task.
  public static func run(
    id: some TaskID, operation: @escaping @Sendable () async throws -> Void
  ) -> Self {
    run(id: id) { _ in try await operation() }
  }

  /// Runs `operation` under a generated id (`auto-task-N`), unique to this task.
  ///
  /// - Parameter operation: The work; it sends actions through the `Send` it receives.
  /// - Returns: The task.
  public static func run(operation: @escaping Operation) -> Self {
    run(id: AutoTaskID.next(), operation: operation)
  }

  /// Runs `operation` under a generated id; for work that sends nothing back.
  ///
  /// - Parameter operation: The work.
  /// - Returns: The task.
  public static func run(operation: @escaping @Sendable () async throws -> Void) -> Self {
    run(id: AutoTaskID.next()) { _ in try await operation() }
  }

  /// Cancels the running task with this id, if any.
  ///
  /// - Parameter id: The id of the task to cancel.
  /// - Returns: The task.
  public static func cancel(id: some TaskID) -> Self {
    Self(storage: .cancel(id: id))
  }

  /// Handles the error a `.run` task throws (never a cancellation). The last handler attached
  /// wins; on `.none` and `.cancel` this does nothing.
  ///
  /// - Parameter handler: Writes the error into the state, on the MainActor.
  /// - Returns: This task, with `handler` attached.
  public func `catch`(_ handler: @escaping ErrorHandler) -> Self {
    guard case .run(let id, let policy, let operation, _) = storage else { return self }
    return Self(storage: .run(id: id, policy: policy, operation: operation, onError: handler))
  }

  /// What this task does.
  public var kind: Kind {
    switch storage {
    case .none: .none
    case .run(let id, _, _, _): .run(id: AnyHashable(id))
    case .cancel(let id): .cancel(id: AnyHashable(id))
    }
  }

  /// The admission policy of a `.run(id:policy:)` task; `nil` otherwise.
  public var policy: AdmissionPolicy? {
    guard case .run(_, let policy, _, _) = storage else { return nil }
    return policy
  }

  /// The task's id, or `nil` for `.none`.
  public var id: AnyHashable? {
    switch kind {
    case .none: nil
    case .run(let id), .cancel(let id): id
    }
  }
}

/// The id of a `.run` task created without one.
struct AutoTaskID: Hashable, Sendable, CustomStringConvertible {
  private static let counter = Atomic<Int>(0)

  let number: Int

  static func next() -> Self {
    Self(number: counter.wrappingAdd(1, ordering: .relaxed).newValue)
  }

  var description: String { "auto-task-\(number)" }
}
