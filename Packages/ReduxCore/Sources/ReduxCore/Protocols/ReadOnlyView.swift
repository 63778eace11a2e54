public import Observation

/// The default read-only projection of a ``ReduxState``: every property of the state,
/// readable through a key path and none writable, with no class to write by hand.
///
/// ```swift
/// @MainActor @Observable
/// final class AppState: ReduxState {     // ReadOnly is ReadOnlyView<AppState>
///   var items: [String] = []
/// }
/// context.task { state in print(state.items) }   // reads; `state.items = []` does not compile
/// ```
///
/// Reads go to the state's own properties, so Observation tracks them as if read on the state.
@MainActor
@dynamicMemberLookup
public final class ReadOnlyView<State: AnyObject & Observable>: ReduxReadOnlyState {
  private let state: State

  /// Creates the view of `state`.
  ///
  /// - Parameter state: The state it reads.
  public init(_ state: State) {
    self.state = state
  }

  /// The value of the state's property at `keyPath`.
  ///
  /// - Parameter keyPath: A read-only key path: a writable one's setter is not reachable here.
  public subscript<Value>(dynamicMember keyPath: KeyPath<State, Value>) -> Value {
    state[keyPath: keyPath]
  }
}
