/// What happened to a dispatched action in its synchronous pipeline.
///
/// ``Store/dispatchWithOutcome(maxDispatchable:_:)`` returns it beside the state, so an app can
/// tell its user why an action changed nothing without comparing states:
///
/// ```swift
/// let (state, outcome) = await store.dispatchWithOutcome(.delete(noteID: 99))
/// switch outcome {
/// case .reduced: show(state.notes)
/// case .failed(let error, _, _): showAlert("\(error)")  // "no note #99"
/// case .stopped(let middleware): showAlert("\(middleware) declined")
/// case .refused(let reason): showAlert("not now: \(reason)")
/// }
/// ```
///
/// Work a middleware leaves for later (a `task`, a `next()` called inside one) is not part of
/// the outcome: its errors reach the resolvers when they happen.
public enum DispatchOutcome: Sendable, CustomStringConvertible {
  /// Every middleware forwarded the action and the reducers ran.
  case reduced
  /// The middleware with this id did not forward the action (it did not call `next`), so the
  /// reducers did not run for it. No error was raised.
  case stopped(middleware: String)
  /// A middleware threw or resolved `error`. `handledBy` is the id of the resolver that handled
  /// it, or `nil` when every resolver forwarded it (or there were none) and it was reported as
  /// ``Store/Event/unresolvedError(_:action:origin:)``. The reducers may have run before the
  /// error: the state tells.
  case failed(any Error, origin: Origin, handledBy: String?)
  /// The action never ran: refused at dispatch, or discarded when the store shut down.
  case refused(DispatchError)

  /// Whether the reducers ran for the action and nothing failed.
  public var isReduced: Bool {
    if case .reduced = self { return true }
    return false
  }

  /// The outcome in words, for a log line or a status message.
  public var description: String {
    switch self {
    case .reduced:
      "reduced"
    case .stopped(let middleware):
      "stopped by middleware '\(middleware)'"
    case .failed(let error, let origin, let handledBy?):
      "failed in \(origin) with \(error), handled by resolver '\(handledBy)'"
    case .failed(let error, let origin, nil):
      "failed in \(origin) with \(error), unresolved"
    case .refused(let reason):
      "refused: \(reason)"
    }
  }
}
