/// A feature: its state, its actions, and the handler that ties them (ViewFeature's
/// `StoreFeature`). Run it in a ``FeatureStore``; test it with `TestStore` (FeatureKitTesting).
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
  associatedtype State
  associatedtype Action: Sendable

  @MainActor func handle() -> ActionHandler<Action, State>
}
