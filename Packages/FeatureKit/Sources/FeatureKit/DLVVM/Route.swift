import Logging

/// How a routed screen is shown (the styles DLVVM's docs name).
public enum RouteStyle: String, Codable, Sendable {
  /// On top of the stack; popping returns to the screen that routed.
  case push
  /// Modally, on top of the stack; `dismiss` removes it and whatever it pushed.
  case present
  /// In place of the screen that routed.
  case replace
}

/// Why a route was refused. Every refusal is thrown, and also logged by the ``Navigator``
/// involved (with the logger it was given); a route from a state no navigator shows has no
/// navigator to log it, so the thrown ``notInNavigation(_:)`` is its only report.
public indirect enum RouteError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The navigation flow does not list this state type.
  case unregisteredState(String)
  /// `route(childState:…)` was called while the child state was `nil`.
  case childStateNotSet(parent: String, child: String)
  /// The routing state is not on screen in any navigator.
  case notInNavigation(String)
  /// Step `index` of a deep link cannot be taken; nothing was applied.
  case invalidDeepLink(index: Int, RouteError)
  /// The flow has no registered route from the state before this step to its state.
  case noRoute(from: String, to: String)

  public var description: String {
    switch self {
    case .unregisteredState(let type): "\(type) is not registered in the navigation flow"
    case .childStateNotSet(let parent, let child): "\(parent) routed to \(child) before setting it"
    case .notInNavigation(let type): "\(type) is not shown by a navigator"
    case .invalidDeepLink(let index, let reason): "deep link step \(index): \(reason)"
    case .noRoute(let from, let to): "no registered route from \(from) to \(to)"
    }
  }
}

/// One screen of a route stack, as data: its state type and how it was shown.
public struct RouteRecord: Codable, Hashable, Sendable {
  /// The state type's name, `String(reflecting:)`.
  public var state: String
  /// How the screen was shown.
  public var style: RouteStyle

  /// A record of a screen whose state type is named `state`.
  ///
  /// - Parameters:
  ///   - state: The state type's name, as `String(reflecting:)` spells it.
  ///   - style: How the screen was shown.
  public init(state: String, style: RouteStyle) {
    self.state = state
    self.style = style
  }

  /// A record of a screen showing a state of type `state`.
  ///
  /// - Parameters:
  ///   - state: The screen's state type.
  ///   - style: How the screen was shown.
  public init(_ state: any NavigatableState.Type, style: RouteStyle = .push) {
    self.init(state: String(reflecting: state), style: style)
  }
}

/// A request to show a child screen, built by `route(childState:…)` or a registered route.
@MainActor
struct RouteRequest {
  let parent: AnyObject
  let childType: any NavigatableState.Type
  let style: RouteStyle
  /// Makes the child's view model from the parent's; returns what undoes the route (clears the
  /// parent's child state and forgets the child view model).
  let attach: (any DLViewModelProtocol) -> (child: any DLViewModelProtocol, detach: () -> Void)?

  static func make<Parent: NavigatableState, Child: NavigatableState>(
    parent: Parent,
    child: Child,
    childState: ReferenceWritableKeyPath<Parent, Child?>,
    event: @escaping (Child.R.Event) -> Parent.R.Action?,
    reducer: Child.R,
    style: RouteStyle
  ) -> RouteRequest {
    RouteRequest(parent: parent, childType: Child.self, style: style) { parentViewModel in
      guard let parentViewModel = parentViewModel as? DLViewModel<Parent> else { return nil }
      let childViewModel = parentViewModel.scope(state: child, event: event, reducer: reducer)
      return (
        childViewModel,
        { [weak parent, weak parentViewModel, weak child] in
          if let parent, let child, parent[keyPath: childState] === child {
            parent[keyPath: childState] = nil
          }
          if let child { parentViewModel?.dropChild(child) }
        }
      )
    }
  }
}

/// What a navigator does for the states it shows.
@MainActor
protocol RouteHandling: AnyObject {
  func route(_ request: RouteRequest) throws(RouteError)
  /// Logs `error` with the navigator's logger and returns it, to throw.
  func refuse(_ error: RouteError) -> RouteError
  func pop(from state: AnyObject)
  func dismiss(from state: AnyObject)
  func popToRoot()
}

extension FeatureReducer where State: NavigatableState, State.R == Self {
  /// Shows the child state at `childState` (set it first) through the navigator showing
  /// `state`; the child's events reach this reducer as the actions `event` maps them to.
  ///
  /// A reducer cannot throw, so a refused route is reported rather than thrown: the navigator
  /// showing `state` logs it (with no navigator, the logger of the view model running the
  /// reducer does), and it is returned. ``tryRoute(childState:to:reducer:routeStyle:with:)``
  /// throws it instead.
  ///
  /// ```swift
  /// case .openDetail(let id):
  ///   state.detail = Detail.State(id: id)
  ///   route(childState: \.detail, to: Action.detail, reducer: Detail(), with: state)
  ///   return .none
  /// ```
  ///
  /// - Returns: `nil` once the child is shown; otherwise why it is not (a ``RouteError``: the
  ///   child state is `nil`, its type is not registered in the navigation flow, or `state` is
  ///   not on screen).
  @MainActor @discardableResult
  public func route<Child: NavigatableState>(
    childState: ReferenceWritableKeyPath<State, Child?>,
    to event: @escaping (Child.R.Event) -> Action?,
    reducer: Child.R,
    routeStyle: RouteStyle = .push,
    with state: State
  ) -> RouteError? {
    do {
      try tryRoute(
        childState: childState, to: event, reducer: reducer, routeStyle: routeStyle, with: state)
      return nil
    } catch {
      return error
    }
  }

  /// Shows the child state at `childState` as ``route(childState:to:reducer:routeStyle:with:)``
  /// does, and throws the refusal.
  ///
  /// - Throws: ``RouteError`` if the child state is `nil`, its type is not registered in the
  ///   navigation flow, or `state` is not on screen. The refusal is logged too: by the navigator
  ///   showing `state`, or, with none, by the view model running the reducer.
  @MainActor
  public func tryRoute<Child: NavigatableState>(
    childState: ReferenceWritableKeyPath<State, Child?>,
    to event: @escaping (Child.R.Event) -> Action?,
    reducer: Child.R,
    routeStyle: RouteStyle = .push,
    with state: State
  ) throws(RouteError) {
    let navigator = StateChannels.navigator(of: state)
    guard let child = state[keyPath: childState] else {
      let error = RouteError.childStateNotSet(
        parent: String(reflecting: State.self), child: String(reflecting: Child.self))
      throw navigator?.refuse(error) ?? Self.refuseWithoutNavigator(error)
    }
    guard let navigator else {
      throw Self.refuseWithoutNavigator(.notInNavigation(String(reflecting: State.self)))
    }
    try navigator.route(
      .make(
        parent: state, child: child, childState: childState, event: event, reducer: reducer,
        style: routeStyle))
  }

  /// Logs `error` with the logger of the view model running the reducer (no navigator shows
  /// the state, so none can), and returns it, to throw.
  @MainActor
  private static func refuseWithoutNavigator(_ error: RouteError) -> RouteError {
    StateChannels.reducingLogger?.error("route refused: \(error)")
    return error
  }

  /// Removes the screen of `state`, and any above it, from its navigator.
  @MainActor
  public func pop(with state: State) {
    StateChannels.navigator(of: state)?.pop(from: state)
  }

  /// Removes every screen above the root of the navigator showing `state`.
  @MainActor
  public func popToRoot(with state: State) {
    StateChannels.navigator(of: state)?.popToRoot()
  }

  /// Removes the presented screen that `state` is on (or above), with what it pushed; a state
  /// that is not in a presentation is popped.
  @MainActor
  public func dismiss(with state: State) {
    StateChannels.navigator(of: state)?.dismiss(from: state)
  }
}
