/// A reducer in Swidux's shape: mutates a state value and may return an effect.
///
/// Feature reducers handle a slice of the actions (`Action`) but return effects that send
/// root-level actions (`RootAction`); the root reducer has `Action == RootAction`.
///
/// ```swift
/// struct ItemReducer: SwiduxReducer {
///   func reduce(state: inout AppState, action: ItemAction, environment: AppEnvironment) -> Effect? {
///     switch action {
///     case .create: state.items.upsert(Item()); return nil
///     }
///   }
/// }
/// ```
public protocol SwiduxReducer<State, Action, RootAction, Environment> {
  /// The state the reducer mutates.
  associatedtype State
  /// The actions the reducer handles.
  associatedtype Action
  /// The actions its effects send.
  associatedtype RootAction: Sendable
  /// What the reducer reads from the outside world (services, database handles).
  associatedtype Environment

  /// Mutates `state` for `action` and returns the async work to run next, if any.
  ///
  /// - Parameters:
  ///   - state: The state to mutate.
  ///   - action: The action to handle.
  ///   - environment: The services the reducer and its effect may use.
  /// - Returns: The effect to run after the state is stored, or `nil`.
  func reduce(state: inout State, action: Action, environment: Environment) -> Effect<RootAction>?
}
