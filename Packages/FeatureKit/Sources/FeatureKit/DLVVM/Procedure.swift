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
    indirect case admitted(id: any TaskID, policy: AdmissionPolicy, Procedure)
  }

  /// What a running procedure reaches: its view model's `send`, clock, task runtime and log.
  struct Runtime: Sendable {
    let send: Send<Action>
    let clock: ClockReader
    let tasks: TaskManager
    /// Receives errors no `catch` handled.
    let failed: @Sendable (any Error) async -> Void
    /// Receives why a procedure never ran.
    let refused: @Sendable (TaskRefusal) -> Void
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

  /// This procedure, started only when `policy` admits it among the procedures with the same
  /// `id` (``/ReduxCore/AdmissionPolicy``, timed on the view model's clock): debounce a search,
  /// throttle a refresh. One turned away never runs; the view model logs why (at debug level
  /// when a newer one superseded it).
  ///
  /// ```swift
  /// case .queryChanged(let text):
  ///   state.query = text
  ///   return .task { .results(try await api.search(text)) }
  ///     .admitted(id: "search", policy: .debounce(.milliseconds(300)))
  /// ```
  ///
  /// - Parameters:
  ///   - id: The id the policy counts by.
  ///   - policy: How procedures with this id are admitted.
  /// - Returns: The procedure, under the policy.
  public func admitted(id: some TaskID, policy: AdmissionPolicy) -> Self {
    Self(storage: .admitted(id: id, policy: policy, self))
  }

  /// Whether this procedure does nothing (so no task is started for it).
  var isNone: Bool {
    switch storage {
    case .none: true
    case .merge(let procedures), .sequence(let procedures): procedures.allSatisfy(\.isNone)
    case .admitted(_, _, let procedure): procedure.isNone
    case .run, .timer: false
    }
  }

  /// The priority of the task that runs this procedure.
  var priority: TaskPriority? {
    if case .run(let priority, _, _) = storage { priority } else { nil }
  }

  /// The procedure as one async function, for a task to run.
  /// Starts the procedure in a task of the runtime's manager, on the caller's actor: now, or
  /// when its admission policy admits it. A procedure that will not run is reported to
  /// `runtime.refused`.
  func launch(in runtime: Runtime, isolation: isolated (any Actor)? = #isolation)
    -> TaskAdmission
  {
    if case .admitted(let id, let policy, let procedure) = storage {
      return runtime.tasks.run(id: id, policy: policy, priority: procedure.priority) {
        await procedure.execute(in: runtime)
      } onFailure: { _ in
      } onRefusal: { refusal in
        runtime.refused(refusal)
      }
    }
    let started = runtime.tasks.run(priority: priority) {
      await execute(in: runtime)
    } onFailure: { _ in
    }
    guard let started else {
      runtime.refused(.shutdown)
      return .refused(.shutdown)
    }
    return .started(started)
  }

  /// Runs the procedure to its end, in the calling task; an admitted one, in a task of its own
  /// when its policy admits it.
  func execute(in runtime: Runtime) async {
    let (send, clock) = (runtime.send, runtime.clock)
    switch storage {
    case .none:
      return
    case .run(_, let operation, let handler):
      do {
        try await operation(send)
      } catch {
        guard !Task.isCancelled else { return }  // a cancelled procedure's end is not a failure
        if let handler { await handler(error, send) } else { await runtime.failed(error) }
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
            await procedure.execute(in: runtime)
          }
        }
      }
    case .sequence(let procedures):
      for procedure in procedures where !Task.isCancelled {
        await procedure.execute(in: runtime)
      }
    case .admitted:
      // NB: nested in a merge or a sequence, it starts in a task of its own; they do not wait.
      _ = launch(in: runtime)
    }
  }
}
