extension Store {
  /// The values of a selection of the state, as they change.
  ///
  /// The stream starts with the current value, then yields a new value after each batch of
  /// actions that changed it (equal values are skipped; a slow reader sees the latest). It ends
  /// when the store shuts down. The selection is read again after each batch whose reducers ran,
  /// so a change made to the state outside a reducer is seen with the next batch, not before.
  ///
  /// ```swift
  /// for await count in store.changes(of: \.count) {
  ///   render(count)
  /// }
  /// ```
  ///
  /// - Parameter select: Reads the value from the read-only state; called once after each batch
  ///   of actions whose reducers ran (the reducers are the state's only writers).
  /// - Returns: A stream that buffers only the newest value.
  /// - Complexity: O(1) plus one call of `select` now, and one after each batch of actions
  ///   whose reducers ran.
  @inlinable
  public func changes<Value: Equatable & Sendable>(
    of select: @escaping (State.ReadOnly) -> Value
  ) -> AsyncStream<Value> {
    worker.subscribe(to: select)
  }
}
