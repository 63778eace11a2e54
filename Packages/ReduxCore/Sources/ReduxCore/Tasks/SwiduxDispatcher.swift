/// A store in Swidux's shape: something actions are sent to, on the main actor.
///
/// A hand-written store runs the "snapshot pattern" in `send`: copy the state slices into a
/// value, reduce, call Persistence's `PersistenceMiddleware.afterReduce(state:)`, assign the slices back,
/// then run the returned effect.
@MainActor
public protocol SwiduxDispatcher<Action> {
  /// The actions the store accepts.
  associatedtype Action

  /// Reduces `action` and starts its effect.
  ///
  /// - Parameter action: The action to reduce.
  func send(_ action: Action)
}
