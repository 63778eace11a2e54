/// The one way async work sends actions back to the store that started it.
///
/// Effects (Swidux's `Effect`), procedures (DLVVM's `Procedure`) and middleware tasks all
/// receive a `Send`. Sending from a task that has been cancelled does nothing, so work that
/// outlives its purpose (a replaced search, a dismissed feature) cannot change state.
///
/// ```swift
/// let effect: Effect = { send in
///   let items = try? await api.items()
///   await send(.loaded(items ?? []))
/// }
/// ```
public struct Send<Action: Sendable>: Sendable {
  private let deliver: @MainActor @Sendable (Action) -> Void

  /// Creates a `Send` that delivers actions to `deliver`.
  public init(_ deliver: @escaping @MainActor @Sendable (Action) -> Void) {
    self.deliver = deliver
  }

  /// Sends `action`, unless the current task is cancelled.
  @MainActor public func callAsFunction(_ action: Action) {
    guard !Task.isCancelled else { return }
    deliver(action)
  }
}
