public import ReduxCore

extension PersistenceMiddleware where State: ReduxState {
  /// Plugs persistence into a ReduxCore ``/ReduxCore/Store``: a reducer that drains the state's
  /// `EntityStore`s after the reducers before it. Put it last:
  ///
  /// ```swift
  /// let store = Store(initialState: state, reducers: [appReducer, persistence.reducer()])
  /// ```
  ///
  /// - Parameter id: The reducer's id in logs.
  /// - Returns: A reducer that calls ``afterReduce(state:)``.
  /// - Complexity: Each run costs what ``afterReduce(state:)`` costs.
  public func reducer<Action: ReduxAction>(id: String = "persistence") -> AnyReducer<State, Action>
  {
    AnyReducer(id: id) { [self] context in
      var state = context.state
      afterReduce(state: &state)
      context.complete()
    }
  }
}
