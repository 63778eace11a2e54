/// Who waits for a dispatched action, and what they learn once it ran or never will.
///
/// A final class, so that the queued record holding it has a fixed layout: a
/// `CheckedContinuation` stored inline would make every copy and destroy of the record go
/// through value witnesses and generic-metadata lookups (perf-2026-11: 18 % of a dispatch).
/// Fire-and-forget dispatches carry none, and allocate nothing for it.
@usableFromInline
final class DispatchCompletion<State: ReduxState>: Sendable {
  @usableFromInline
  enum Waiter: Sendable {
    /// `dispatch(_:completion:)`: called with the state after the pipeline.
    case callback(@MainActor @Sendable (State.ReadOnly) -> Void)
    /// `tryDispatchWithResult`: the state, or why the action never ran.
    case state(CheckedContinuation<Result<State.ReadOnly, DispatchError>, Never>)
    /// `dispatchWithOutcome`: the state and what happened to the action.
    case outcome(CheckedContinuation<(state: State.ReadOnly, outcome: DispatchOutcome), Never>)
  }

  @usableFromInline let waiter: Waiter

  @usableFromInline
  init(_ waiter: Waiter) {
    self.waiter = waiter
  }

  /// Whether the waiter learns the outcome, which is then read off the pipeline's frame.
  @inlinable
  var wantsOutcome: Bool {
    if case .outcome = waiter { return true }
    return false
  }

  /// The action ran: `outcome` is evaluated only for a waiter that wants it.
  @MainActor @inlinable
  func finish(state: State.ReadOnly, outcome: () -> DispatchOutcome) {
    switch waiter {
    case .callback(let callback): callback(state)
    case .state(let continuation): continuation.resume(returning: .success(state))
    case .outcome(let continuation): continuation.resume(returning: (state, outcome()))
    }
  }

  /// The action never ran (the store shut down before it did): the callback is not called,
  /// the others learn why.
  @MainActor
  func refuse(_ reason: DispatchError, state: State.ReadOnly) {
    switch waiter {
    case .callback: break
    case .state(let continuation): continuation.resume(returning: .failure(reason))
    case .outcome(let continuation): continuation.resume(returning: (state, .refused(reason)))
    }
  }
}
