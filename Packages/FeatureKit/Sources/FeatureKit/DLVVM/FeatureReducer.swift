/// A feature's logic on its state object: DLVVM's `Reducer` (reachable as `DLVVM.Reducer`;
/// ReduxCore owns the plain name).
///
/// ```swift
/// final class Counter: FeatureReducer {
///   @Observable final class State: BusinessState {
///     typealias R = Counter
///     var count = 0
///   }
///   enum Action: Sendable { case increment, tick }
///   enum Event { case reachedTen }
///
///   func reduce(into state: State, action: Action) -> Procedure<Action, State> {
///     state.count += 1
///     if state.count == 10 { fireEvent(.reachedTen, with: state) }
///     return .none
///   }
/// }
/// ```
public protocol FeatureReducer<State, Action, Event> {
  /// The state object the reducer mutates.
  associatedtype State: BusinessState
  /// The actions the reducer handles.
  associatedtype Action: Sendable
  /// What the feature tells its parent (`fireEvent`); `Void` when it tells nothing.
  associatedtype Event = Void

  /// Mutates `state` for `action` and returns the side effect to run next.
  ///
  /// - Parameters:
  ///   - state: The state object; mutate it in place.
  ///   - action: The action to handle.
  /// - Returns: The procedure the view model starts, or ``Procedure/none``.
  @MainActor func reduce(into state: State, action: Action) -> Procedure<Action, State>
}

extension FeatureReducer {
  /// Delivers `event` to the parent of the view model showing `state`, synchronously: the
  /// parent's reducer has run when this returns. Nothing happens if no parent listens.
  ///
  /// - Parameters:
  ///   - event: What to tell the parent.
  ///   - state: The state of the view model whose parent hears the event.
  /// - Complexity: O(*l* log *l*) for *l* listeners of `state` (usually one), plus what their
  ///   reducers do.
  @MainActor
  public func fireEvent(_ event: Event, with state: State) {
    StateChannels.fire(event, from: state)
  }
}
