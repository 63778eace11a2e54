/// The side effect a ``FeatureReducer`` returns: DLVVM's `Procedure`, with the cases its docs
/// promise (`.task`, `.timer`, and `.stream` in place of Combine's `.publisher`).
///
/// ```swift
/// case .load:
///   return .task { .loaded(try await api.items()) } catch: { error, send in
///     await send(.failed("\(error)"))
///   }
/// case .start:
///   return .merge(.timer(interval: .seconds(1)) { .tick }, .stream { prices.map(Action.price) })
/// ```
///
/// Procedures run on the view model's ``/ReduxCore/TaskManager`` and stop when it goes away.
/// A cancelled procedure's `CancellationError` never reaches `catch`, and its `send` does
/// nothing.
public struct Procedure<Action: Sendable, State>: Sendable {
  /// The work of a `.run` procedure. It may send actions back to its view model.
  public typealias Operation = @Sendable (Send<Action>) async throws -> Void
  /// Handles the error a procedure threw (never a cancellation); it may send actions too.
  public typealias Catch = @Sendable (any Error, Send<Action>) async -> Void

  enum Storage: Sendable {
    case none
    case run(priority: TaskPriority?, operation: Operation, catch: Catch?)
    case timer(interval: Duration, action: @Sendable () -> Action)
    case merge([Procedure])
    case sequence([Procedure])
  }

  let storage: Storage

  /// No side effect.
  public static var none: Self { Self(storage: .none) }

  /// Runs `operation`. Its errors go to `catch`, or to the view model's log without one.
  ///
  /// - Parameters:
  ///   - priority: The priority of the task that runs it.
  ///   - operation: The work; it sends actions through the `Send` it receives.
  ///   - catch: Handles the error `operation` throws.
  /// - Returns: The procedure.
  public static func run(
    priority: TaskPriority? = nil,
    operation: @escaping Operation,
    catch: Catch? = nil
  ) -> Self {
    Self(storage: .run(priority: priority, operation: operation, catch: `catch`))
  }

  /// Runs `operation` and sends the action it returns.
  ///
  /// - Parameters:
  ///   - priority: The priority of the task that runs it.
  ///   - operation: The work; its result is sent.
  ///   - catch: Handles the error `operation` throws.
  /// - Returns: The procedure.
  public static func task(
    priority: TaskPriority? = nil,
    operation: @escaping @Sendable () async throws -> Action,
    catch: Catch? = nil
  ) -> Self {
    run(
      priority: priority, operation: { send in await send(try await operation()) }, catch: `catch`)
  }

  /// Sends `action()` every `interval` on the view model's clock, measured from the start so
  /// ticks do not drift, until cancelled.
  ///
  /// - Parameters:
  ///   - interval: The time between ticks; positive. Zero or less would tick without pause:
  ///     the timer then does not run, and ``ProcedureError/timerIntervalNotPositive(_:)`` is
  ///     logged as the procedure's failure.
  ///   - action: Makes the action each tick sends.
  /// - Returns: The procedure.
  public static func timer(interval: Duration, action: @escaping @Sendable () -> Action) -> Self {
    guard interval > .zero else {
      return run { _ in throw ProcedureError.timerIntervalNotPositive(interval) }
    }
    return Self(storage: .timer(interval: interval, action: action))
  }

  /// Sends every element of the sequence `makeSequence` creates, in order, until it ends or the
  /// procedure is cancelled. This replaces DLVVM's Combine `.publisher`.
  ///
  /// - Parameters:
  ///   - priority: The priority of the task that runs it.
  ///   - makeSequence: Makes the sequence when the procedure starts.
  ///   - catch: Handles the error the sequence throws.
  /// - Returns: The procedure.
  public static func stream<Sequence: AsyncSequence>(
    priority: TaskPriority? = nil,
    _ makeSequence: @escaping @Sendable () -> Sequence,
    catch: Catch? = nil
  ) -> Self where Sequence.Element == Action, Sequence: SendableMetatype {
    run(
      priority: priority,
      operation: { send in
        for try await action in makeSequence() { await send(action) }
      }, catch: `catch`)
  }

  /// Runs `procedures` at once; ends when all have ended.
  ///
  /// - Parameter procedures: The procedures, each in a child task.
  /// - Returns: The procedure.
  public static func merge(_ procedures: Self...) -> Self { merge(procedures) }

  /// Runs `procedures` at once; ends when all have ended.
  ///
  /// - Parameter procedures: The procedures, each in a child task.
  /// - Returns: The procedure.
  public static func merge(_ procedures: [Self]) -> Self { Self(storage: .merge(procedures)) }

  /// Runs `procedures` one after the other.
  ///
  /// - Parameter procedures: The procedures, in the order they run.
  /// - Returns: The procedure.
  public static func sequence(_ procedures: Self...) -> Self { sequence(procedures) }

  /// Runs `procedures` one after the other.
  ///
  /// - Parameter procedures: The procedures, in the order they run.
  /// - Returns: The procedure.
  public static func sequence(_ procedures: [Self]) -> Self { Self(storage: .sequence(procedures)) }

  /// Whether this procedure does nothing (so no task is started for it).
  var isNone: Bool {
    switch storage {
    case .none: true
    case .merge(let procedures), .sequence(let procedures): procedures.allSatisfy(\.isNone)
    case .run, .timer: false
    }
  }

  /// The priority of the task that runs this procedure.
  var priority: TaskPriority? {
    if case .run(let priority, _, _) = storage { priority } else { nil }
  }

  /// The procedure as one async function, for a task to run.
  func work(
    send: Send<Action>, clock: ClockReader, failed: @escaping @Sendable (any Error) async -> Void
  ) -> @Sendable () async -> Void {
    { await execute(send: send, clock: clock, failed: failed) }
  }

  /// Runs the procedure to its end, in the calling task.
  ///
  /// - Parameter failed: Receives errors no `catch` handled.
  func execute(
    send: Send<Action>, clock: ClockReader, failed: @escaping @Sendable (any Error) async -> Void
  ) async {
    switch storage {
    case .none:
      return
    case .run(_, let operation, let handler):
      do {
        try await operation(send)
      } catch {
        guard !Task.isCancelled else { return }  // a cancelled procedure's end is not a failure
        if let handler { await handler(error, send) } else { await failed(error) }
      }
    case .timer(let interval, let action):
      let start = clock.now()
      var tick: Int64 = 1
      while !Task.isCancelled {
        let deadline = start + interval * tick
        do {
          try await clock.sleep(for: deadline - clock.now())()
        } catch {
          return
        }
        await send(action())
        tick += 1
      }
    case .merge(let procedures):
      await withDiscardingTaskGroup { group in
        for procedure in procedures where !procedure.isNone {
          group.addTask(priority: procedure.priority) {
            await procedure.execute(send: send, clock: clock, failed: failed)
          }
        }
      }
    case .sequence(let procedures):
      for procedure in procedures where !Task.isCancelled {
        await procedure.execute(send: send, clock: clock, failed: failed)
      }
    }
  }
}
