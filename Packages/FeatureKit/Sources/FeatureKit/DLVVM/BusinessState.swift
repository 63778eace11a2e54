/// A feature's state: a reference type its reducer mutates in place (DLVVM's `BusinessState`).
///
/// ```swift
/// @Observable final class State: BusinessState {
///   typealias R = ItemsFeature
///   var items: [Item] = []
/// }
/// ```
public protocol BusinessState: AnyObject {
  associatedtype R: FeatureReducer where R.State == Self
}

/// A state that can route to child screens (DLVVM's `NavigatableState`). Its optional child
/// states are the navigation targets: set one, then call `route(childState:…)`.
public protocol NavigatableState: BusinessState {
  associatedtype NavigatorEvent = Void
}
