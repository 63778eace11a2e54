extension Store {
  /// Dispatches `action` from any thread under an admission policy, fire-and-forget.
  ///
  /// The policy governs dispatches of the same `id`: ``AdmissionPolicy/latest`` replaces a
  /// queued one, ``AdmissionPolicy/debounce(_:maxWait:)`` and
  /// ``AdmissionPolicy/throttle(_:leading:trailing:)`` may hold it until a deadline on the
  /// store's clock. A dispatch that is refused returns `false`; one that is held returns `true`
  /// and, if a newer one supersedes it later, is reported through `onLog` as
  /// ``Event/refused(_:reason:)`` with ``DispatchError/superseded(actionID:)`` and counted in
  /// ``refusedDispatchCount``.
  ///
  /// ```swift
  /// store.dispatch(.search(text), policy: .debounce(.milliseconds(300), maxWait: .seconds(1)))
  /// ```
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - policy: How dispatches of this action's `id` are admitted.
  /// - Returns: `false` if the action was refused.
  /// - Complexity: See ``AdmissionPolicy``: O(1) but for `latest` replacing a queued action
  ///   (O(*n*), *n* queued actions).
  @inlinable @discardableResult
  public nonisolated func dispatch(_ action: Action, policy: AdmissionPolicy) -> Bool {
    worker.enqueue(action, policy: policy, completion: nil) == nil
  }

  /// Dispatches `action` under an admission policy and calls `completion` on the main actor
  /// with the state after the action's synchronous pipeline; never, if it is refused or
  /// superseded (reported through `onLog`).
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - policy: How dispatches of this action's `id` are admitted.
  ///   - completion: Receives the read-only state once the action's synchronous pipeline ran.
  /// - Returns: `false` if the action was refused at once.
  @discardableResult
  public nonisolated func dispatch(
    _ action: Action, policy: AdmissionPolicy,
    completion: @escaping @MainActor @Sendable (State.ReadOnly) -> Void
  ) -> Bool {
    worker.enqueue(action, policy: policy, completion: DispatchCompletion(.callback(completion)))
      == nil
  }

  /// Dispatches `action` under an admission policy, or throws why it was refused at once.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - policy: How dispatches of this action's `id` are admitted.
  /// - Throws: ``DispatchError``: `.rateLimited`, `.throttled`, `.queueFull` or `.shutdown`.
  @inlinable
  public nonisolated func tryDispatch(_ action: Action, policy: AdmissionPolicy)
    throws(DispatchError)
  {
    if let refusal = worker.enqueue(action, policy: policy, completion: nil) { throw refusal }
  }

  /// Dispatches `action` under an admission policy and returns the state after its pipeline,
  /// or the current state if it never ran (refused, superseded, or the store shut down first;
  /// reported through `onLog`). A held dispatch returns when its policy releases it and it has
  /// run.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - policy: How dispatches of this action's `id` are admitted.
  /// - Returns: The live read-only state.
  @discardableResult
  public func dispatchWithResult(_ action: Action, policy: AdmissionPolicy) async
    -> State.ReadOnly
  {
    (try? await tryDispatchWithResult(action, policy: policy)) ?? state
  }

  /// Dispatches `action` under an admission policy and returns the state after its pipeline,
  /// or throws why it never ran: refused, superseded by a newer dispatch, or the store shut
  /// down first. A held dispatch returns when its policy releases it and it has run.
  ///
  /// ```swift
  /// do {
  ///   let state = try await store.tryDispatchWithResult(.search(text), policy: .latest)
  /// } catch .superseded {
  ///   // a newer search replaced this one
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - policy: How dispatches of this action's `id` are admitted.
  /// - Returns: The live read-only state, read once the action's synchronous pipeline ran.
  /// - Throws: ``DispatchError``.
  @discardableResult
  public func tryDispatchWithResult(_ action: Action, policy: AdmissionPolicy)
    async throws(DispatchError) -> State.ReadOnly
  {
    try await awaitState { worker.enqueue(action, policy: policy, completion: $0) }.get()
  }

  /// Dispatches `action` under an admission policy and returns the state after its pipeline
  /// with what happened to it; a superseded or throttled dispatch is
  /// ``DispatchOutcome/refused(_:)`` with the reason.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - policy: How dispatches of this action's `id` are admitted.
  /// - Returns: The state after the pipeline (or the current state, if the action never ran) and
  ///   the action's ``DispatchOutcome``.
  @discardableResult
  public func dispatchWithOutcome(_ action: Action, policy: AdmissionPolicy) async
    -> (state: State.ReadOnly, outcome: DispatchOutcome)
  {
    await awaitOutcome { worker.enqueue(action, policy: policy, completion: $0) }
  }
}
