/// A pure state mutation, run on the main actor for every action that reaches it.
///
/// Reducers run in array order after the innermost middleware forwards the action.
public protocol Reducer<State, Action>: Identifiable, Sendable where ID == String {
  /// The state the reducer mutates.
  associatedtype State: ReduxState
  /// The action the reducer handles.
  associatedtype Action: ReduxAction

  /// The identity reported in logs.
  var id: String { get }

  /// Mutates `context.state` for `context.action`. Keep it fast: it runs on the main actor.
  var reduce: @MainActor @Sendable (ReducerContext<State, Action>) -> Void { get }
}
