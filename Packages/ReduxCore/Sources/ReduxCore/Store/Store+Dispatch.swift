extension Store {
  /// Dispatches `action` from any thread, fire-and-forget.
  ///
  /// A refusal (a full queue, a rate limit, a store shut down) is returned as `false`, reported
  /// through `onLog` as ``Event/refused(_:reason:)``, and counted in ``refusedDispatchCount``;
  /// a store without `onLog` also writes one warning to standard error at its first refusal.
  ///
  /// - Parameters:
  ///   - maxDispatchable: How many actions with this `id` may be pending at once (`0`:
  ///     unlimited). Limited and unlimited dispatches of one id keep separate counts.
  ///   - action: The action.
  /// - Returns: `false` if the action was refused.
  /// - Complexity: Amortized O(1) on the calling thread; the pipeline runs later, on the main
  ///   actor.
  @inlinable @discardableResult
  public nonisolated func dispatch(maxDispatchable: UInt = 0, _ action: Action) -> Bool {
    worker.enqueue(action, limit: maxDispatchable, completion: nil) == nil
  }

  /// How many dispatches this store refused since it was created, whether or not anybody
  /// listened to `onLog`.
  public nonisolated var refusedDispatchCount: Int { worker.dispatcher.refusedCount }

  /// Dispatches `action` from any thread and calls `completion` on the main actor with the
  /// state after the action's synchronous pipeline.
  ///
  /// `completion` runs on the main actor, so it may read the state directly:
  ///
  /// ```swift
  /// store.dispatch(.add(note)) { state in render(state.notes) }
  /// ```
  ///
  /// - Parameters:
  ///   - maxDispatchable: How many actions with this `id` may be pending at once (`0`:
  ///     unlimited).
  ///   - action: The action.
  ///   - completion: Receives the read-only state once the action's synchronous pipeline ran.
  /// - Returns: `false` if the action was refused; `completion` is then never called (nor when
  ///   the store shuts down before the action runs).
  /// - Complexity: Amortized O(1) on the calling thread.
  @discardableResult
  public nonisolated func dispatch(
    maxDispatchable: UInt = 0,
    _ action: Action,
    completion: @escaping @MainActor @Sendable (State.ReadOnly) -> Void
  ) -> Bool {
    worker.enqueue(
      action, limit: maxDispatchable, completion: DispatchCompletion(.callback(completion)))
      == nil
  }

  /// Dispatches `action` from any thread, or throws why it was refused.
  ///
  /// - Parameters:
  ///   - maxDispatchable: How many actions with this `id` may be pending at once (`0`:
  ///     unlimited).
  ///   - action: The action.
  /// - Throws: ``DispatchError``.
  /// - Complexity: Amortized O(1) on the calling thread.
  public nonisolated func tryDispatch(maxDispatchable: UInt = 0, _ action: Action)
    throws(DispatchError)
  {
    if let refusal = worker.enqueue(action, limit: maxDispatchable, completion: nil) {
      throw refusal
    }
  }

  /// Dispatches `action` and returns the state after its synchronous pipeline.
  ///
  /// If the action is refused (or the store shuts down before it runs), returns the current
  /// state at once; the refusal is reported through `onLog`. Use
  /// ``tryDispatchWithResult(maxDispatchable:_:)`` to know why.
  ///
  /// - Parameters:
  ///   - maxDispatchable: How many actions with this `id` may be pending at once (`0`:
  ///     unlimited).
  ///   - action: The action.
  /// - Returns: The live read-only state, read once the action's synchronous pipeline ran.
  @discardableResult
  public func dispatchWithResult(maxDispatchable: UInt = 0, _ action: Action) async
    -> State.ReadOnly
  {
    (try? await tryDispatchWithResult(maxDispatchable: maxDispatchable, action)) ?? state
  }

  /// Dispatches `action` and returns the state after its synchronous pipeline, or throws why it
  /// never ran.
  ///
  /// - Parameters:
  ///   - maxDispatchable: How many actions with this `id` may be pending at once (`0`:
  ///     unlimited).
  ///   - action: The action.
  /// - Returns: The live read-only state, read once the action's synchronous pipeline ran.
  /// - Throws: ``DispatchError`` if the action was refused or the store shut down first.
  @discardableResult
  public func tryDispatchWithResult(maxDispatchable: UInt = 0, _ action: Action)
    async throws(DispatchError) -> State.ReadOnly
  {
    try await awaitState { worker.enqueue(action, limit: maxDispatchable, completion: $0) }.get()
  }

  /// Dispatches `action` and returns the state after its synchronous pipeline together with
  /// what happened to the action: reduced, stopped by a middleware, failed (with the error and
  /// the resolver that handled it), or refused (with the reason).
  ///
  /// ```swift
  /// let (state, outcome) = await store.dispatchWithOutcome(.delete(noteID: 99))
  /// if case .failed(let error, _, _) = outcome { statusLine = "\(error)" }
  /// ```
  ///
  /// A refused action returns at once with the current state and ``DispatchOutcome/refused(_:)``;
  /// the refusal is also reported through `onLog`.
  ///
  /// - Parameters:
  ///   - maxDispatchable: How many actions with this `id` may be pending at once (`0`:
  ///     unlimited).
  ///   - action: The action.
  /// - Returns: The state after the pipeline (or the current state, if the action never ran) and
  ///   the action's ``DispatchOutcome``.
  /// - Complexity: O(*m*) after the pipeline, *m* the number of middlewares (finding the one that
  ///   stopped the action).
  @discardableResult
  public func dispatchWithOutcome(maxDispatchable: UInt = 0, _ action: Action) async
    -> (state: State.ReadOnly, outcome: DispatchOutcome)
  {
    await awaitOutcome { worker.enqueue(action, limit: maxDispatchable, completion: $0) }
  }

  /// Enqueues with a completion that resumes the caller with the state after the pipeline, or
  /// at once with the refusal `enqueue` returns.
  func awaitState(_ enqueue: (DispatchCompletion<State>) -> DispatchError?) async
    -> Result<State.ReadOnly, DispatchError>
  {
    await withCheckedContinuation { continuation in
      if let refusal = enqueue(DispatchCompletion(.state(continuation))) {
        continuation.resume(returning: .failure(refusal))
      }
    }
  }

  /// Enqueues with a completion that resumes the caller with the state and the outcome, or at
  /// once with the refusal `enqueue` returns.
  func awaitOutcome(_ enqueue: (DispatchCompletion<State>) -> DispatchError?) async
    -> (state: State.ReadOnly, outcome: DispatchOutcome)
  {
    await withCheckedContinuation { continuation in
      if let refusal = enqueue(DispatchCompletion(.outcome(continuation))) {
        continuation.resume(returning: (state, .refused(refusal)))
      }
    }
  }

  /// A ``Send`` that dispatches to this store, for effects and tasks.
  public nonisolated var send: Send<Action> {
    let worker = self.worker
    return Send { worker.enqueue($0, limit: 0, completion: nil) }
  }
}
