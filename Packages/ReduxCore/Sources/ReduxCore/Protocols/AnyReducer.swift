/// A type-erased ``Reducer`` built from a closure or from another reducer.
public struct AnyReducer<State: ReduxState, Action: ReduxAction>: Reducer {
  public let id: String
  public let reduce: @MainActor @Sendable (ReducerContext<State, Action>) -> Void

  /// Creates a reducer from a closure.
  public init(
    id: String,
    _ reduce: @escaping @MainActor @Sendable (ReducerContext<State, Action>) -> Void
  ) {
    self.id = id
    self.reduce = reduce
  }

  /// Wraps another reducer of the same state and action.
  public init<Wrapped: Reducer>(_ reducer: Wrapped)
  where Wrapped.State == State, Wrapped.Action == Action {
    self.init(id: reducer.id, reducer.reduce)
  }
}
