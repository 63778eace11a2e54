/// A feature: its state, its actions, and the handler that ties them (ViewFeature's
/// `StoreFeature`). Run it in a ``FeatureStore``; test it with `FeatureTestStore` (FeatureKitTesting).
///
/// ```swift
/// struct Counter: StoreFeature {
///   struct State: Equatable { var count = 0 }
///   enum Action: Sendable { case increment }
///   func handle() -> ActionHandler<Action, State> {
///     ActionHandler { action, state in
///       state.count += 1
///       return .none
///     }
///   }
/// }
/// ```
///
/// `State` may be a value or an `@Observable` class: the handler mutates it in place.
public protocol StoreFeature {
  /// The feature's state: a value or an `@Observable` class.
  associatedtype State
  /// The feature's actions.
  associatedtype Action: Sendable

  /// The feature's handler. A ``FeatureStore`` calls it once, when it is created.
  ///
  /// - Returns: The handler, with its middlewares, transforms and error handlers.
  @MainActor func handle() -> ActionHandler<Action, State>
}
