/// Async work a reducer returns; it sends actions back through `send`.
///
/// Effects run off the main actor (`@concurrent`); `await send(action)` hops back to it. Apps
/// specialise it once:
///
/// ```swift
/// typealias Send = ReduxCore.Send<AppAction>
/// typealias Effect = ReduxCore.Effect<AppAction>
/// ```
public typealias Effect<Action: Sendable> = @concurrent @Sendable (Send<Action>) async -> Void

extension TaskManager {
  /// Runs a reducer's effect in a task of this manager, so that it is cancelled with the store
  /// that owns the manager.
  ///
  /// ```swift
  /// if let effect { tasks.run(effect, send: Send { [weak self] in self?.send($0) }) }
  /// ```
  ///
  /// - Parameters:
  ///   - effect: The effect.
  ///   - send: Where the effect sends its actions.
  ///   - isolation: The actor the task starts on; the effect itself runs off it (`@concurrent`).
  /// - Returns: The task, or `nil` if the manager is shut down (the effect does not run).
  @discardableResult
  public func run<Action: Sendable>(
    _ effect: @escaping Effect<Action>, send: Send<Action>,
    isolation: isolated (any Actor)? = #isolation
  ) -> Task<Void, Never>? {
    run(isolation: isolation) {
      await effect(send)
    } onFailure: { _ in
    }
  }

  /// Runs a reducer's effect under `id` when `policy` admits it: debounce a search's effect,
  /// throttle a refresh (``TaskManager/run(id:policy:priority:isolation:operation:onFailure:onRefusal:)``
  /// says how each policy treats tasks).
  ///
  /// - Parameters:
  ///   - effect: The effect.
  ///   - send: Where the effect sends its actions.
  ///   - id: The id the policy counts by; the effect is cancelled by it too.
  ///   - policy: How effects with this id are admitted.
  ///   - isolation: The actor the task starts on; the effect itself runs off it (`@concurrent`).
  ///   - onRefusal: Told, on that actor, why the effect will never run.
  /// - Returns: Whether the effect started, is held, or was refused.
  @discardableResult
  public func run<Action: Sendable>(
    _ effect: @escaping Effect<Action>, send: Send<Action>, id: some TaskID,
    policy: AdmissionPolicy, isolation: isolated (any Actor)? = #isolation,
    onRefusal: sending @escaping (TaskRefusal) async -> Void
  ) -> TaskAdmission {
    run(
      id: id, policy: policy, isolation: isolation, operation: { await effect(send) },
      onFailure: { _ in }, onRefusal: onRefusal)
  }
}
