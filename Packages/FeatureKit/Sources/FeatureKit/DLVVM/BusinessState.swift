/// A feature's state: a reference type its reducer mutates in place (DLVVM's `BusinessState`).
///
/// ```swift
/// @Observable final class State: BusinessState {
///   typealias R = ItemsFeature
///   var items: [Item] = []
/// }
/// ```
public protocol BusinessState: AnyObject {
  /// The reducer that runs on this state (DLVVM's name for it).
  associatedtype R: FeatureReducer where R.State == Self
}

/// A state that can route to child screens (DLVVM's `NavigatableState`). Its optional child
/// states are the navigation targets: set one, then call `route(childState:…)`.
public protocol NavigatableState: BusinessState {
  /// What the state's screen tells the navigation around it, as DLVVM declares it; `Void` by
  /// default. FeatureKit's navigator does not read it.
  associatedtype NavigatorEvent = Void
}
