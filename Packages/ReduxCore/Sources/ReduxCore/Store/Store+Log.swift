extension Store {
  /// What a store reports through `onLog`.
  ///
  /// Timing entries (`middleware`, `reducer`, `resolver`) are emitted by each component's
  /// `context.complete()`; `store` entries by the store itself.
  public enum Log: Sendable {
    /// `complete` of a middleware: id, action, elapsed time since it started, result.
    case middleware(String, Action, Duration, Result<Bool, any Error>)
    /// `complete` of a reducer: id, action, elapsed time, whether it succeeded.
    case reducer(String, Action, Duration, Bool)
    /// `complete` of a resolver: id, action, elapsed time, whether it succeeded, the error.
    case resolver(String, Action, Duration, Bool, any Error)
    /// Something the store itself did or refused.
    case store(Event)
  }

  /// Something the store itself did or refused, reported as ``Log/store(_:)``.
  public enum Event: Sendable, CustomStringConvertible {
    /// A dispatch was refused; the action never ran.
    case refused(Action, reason: DispatchError)
    /// An admitted action never ran: the store shut down first.
    case discarded(Action, reason: DispatchError)
    /// An error no resolver handled (there were none, or all forwarded it).
    case unresolvedError(any Error, action: Action, origin: Origin)
    /// A middleware's task never ran: the store had shut down, or its admission policy
    /// refused it (``MiddlewareContext/task(id:policy:_:)``).
    case taskRefused(Action, origin: Origin, reason: TaskRefusal)
    /// The store shut down, discarding this many queued actions.
    case shutdown(discarded: Int)
    /// An initializer argument was out of range and was clamped; the sentence says how.
    case adjusted(String)

    public var description: String {
      switch self {
      case .refused(let action, let reason):
        "refused '\(action.id)': \(reason)"
      case .discarded(let action, let reason):
        "discarded '\(action.id)': \(reason)"
      case .unresolvedError(let error, let action, let origin):
        "unresolved error from \(origin) during '\(action.id)': \(error)"
      case .taskRefused(let action, let origin, let reason):
        "task of \(origin) during '\(action.id)' refused: \(reason)"
      case .shutdown(let discarded):
        "shut down, \(discarded) queued action(s) discarded"
      case .adjusted(let adjustment):
        adjustment
      }
    }
  }
}
