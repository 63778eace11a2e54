extension Store {
  /// Dispatches `action` from any thread, fire-and-forget.
  ///
  /// A refusal is reported through `onLog` as ``Event/refused(_:reason:)``.
  ///
  /// - Parameters:
  ///   - maxDispatchable: How many actions with this `id` may be pending at once (`0`:
  ///     unlimited). Limited and unlimited dispatches of one id keep separate counts.
  ///   - action: The action.
  /// - Complexity: Amortized O(1) on the calling thread; the pipeline runs later, on the main
  ///   actor.
  @inlinable
  public nonisolated func dispatch(maxDispatchable: UInt = 0, _ action: Action) {
    worker.enqueue(action, limit: maxDispatchable, completion: nil)
  }

  /// Dispatches `action` from any thread and calls `completion` on the main actor with the
  /// state after the action's synchronous pipeline.
  ///
  /// - Parameters:
  ///   - maxDispatchable: How many actions with this `id` may be pending at once (`0`:
  ///     unlimited).
  ///   - action: The action.
  ///   - completion: Receives the read-only state once the action's synchronous pipeline ran.
  /// - Returns: `false` if the action was refused; `completion` is then never called.
  /// - Complexity: Amortized O(1) on the calling thread.
  @discardableResult
  public nonisolated func dispatch(
    maxDispatchable: UInt = 0,
    _ action: Action,
    completion: @escaping @Sendable (State.ReadOnly) -> Void
  ) -> Bool {
    worker.enqueue(action, limit: maxDispatchable, completion: .callback(completion)) == nil
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
    let result = await withCheckedContinuation { continuation in
      if let refusal = worker.enqueue(
        action, limit: maxDispatchable, completion: .continuation(continuation))
      {
        continuation.resume(returning: .failure(refusal))
      }
    }
    return try result.get()
  }

  /// A ``Send`` that dispatches to this store, for effects and tasks.
  public nonisolated var send: Send<Action> {
    let worker = self.worker
    return Send { worker.enqueue($0, limit: 0, completion: nil) }
  }
}
