/// The screens a navigator may show: DLVVM's `NavigationFlow`, with a builder that turns a view
/// model into whatever a front end renders (a terminal screen, a SwiftUI view).
///
/// ```swift
/// let flow = NavigationFlow<String>(stateTypeList: [Home.State.self, Detail.State.self]) { viewModel in
///   switch viewModel {
///   case let home as ViewModelOf<Home>: "Home (\(home.items.count) items)"
///   case let detail as ViewModelOf<Detail>: "Detail \(detail.title)"
///   default: nil
///   }
/// }
/// .registering(\Home.State.detail, event: Home.Action.detail, reducer: Detail()) { Detail.State() }
/// ```
///
/// Registered routes (`registering`) are what deep links and restored route stacks follow: a
/// reducer routes with `route(childState:…)`, a deep link names the screens and the flow knows
/// how to reach each from the one before.
public struct NavigationFlow<Screen> {
  /// Turns a screen's view model into what the front end renders, or `nil` to render nothing.
  public typealias ScreenBuilder = @MainActor (any DLViewModelProtocol) -> Screen?

  /// The state types this flow shows.
  public private(set) var stateTypeList: [any NavigatableState.Type]
  let screenBuilder: ScreenBuilder
  private(set) var routes: [RegisteredRoute] = []

  /// Creates a flow with no registered route.
  ///
  /// - Parameters:
  ///   - stateTypeList: The state types its navigators may show; routing to another type
  ///     throws ``RouteError/unregisteredState(_:)``.
  ///   - viewBuilder: Turns each screen's view model into what the front end renders.
  public init(stateTypeList: [any NavigatableState.Type], viewBuilder: @escaping ScreenBuilder) {
    self.stateTypeList = stateTypeList
    self.screenBuilder = viewBuilder
  }

  /// This flow, plus a route from `Parent` to the child state at `childState` (registering the
  /// child's type too), for deep links and restoration.
  ///
  /// - Parameters:
  ///   - childState: Where the parent holds the child state.
  ///   - event: Maps the child's events to the parent's actions.
  ///   - reducer: The child's reducer.
  ///   - makeState: Makes the child state when a deep link reaches a parent whose child state
  ///     is `nil`. A restored parent that already holds one keeps it.
  /// - Returns: A copy of this flow with the route added.
  /// - Complexity: O(*t* + *r*), for *t* state types and *r* registered routes (the copy).
  @MainActor
  public func registering<Parent: NavigatableState, Child: NavigatableState>(
    _ childState: ReferenceWritableKeyPath<Parent, Child?>,
    event: @escaping (Child.R.Event) -> Parent.R.Action?,
    reducer: Child.R,
    makeState: @escaping @MainActor () -> Child
  ) -> Self {
    var copy = self
    if !isRegistered(Child.self) { copy.stateTypeList.append(Child.self) }
    copy.routes.append(
      RegisteredRoute(parentType: Parent.self, childType: Child.self) { parentState, style in
        guard let parent = parentState as? Parent else { return nil }
        let child = parent[keyPath: childState] ?? makeState()
        parent[keyPath: childState] = child
        return .make(
          parent: parent, child: child, childState: childState, event: event, reducer: reducer,
          style: style)
      })
    return copy
  }

  func isRegistered(_ type: any NavigatableState.Type) -> Bool {
    stateTypeList.contains { ObjectIdentifier($0) == ObjectIdentifier(type) }
  }

  func route(from parent: any NavigatableState.Type, to childName: String) -> RegisteredRoute? {
    routes.first {
      ObjectIdentifier($0.parentType) == ObjectIdentifier(parent) && $0.childName == childName
    }
  }
}

/// A route the flow knows how to take on its own.
struct RegisteredRoute {
  let parentType: any NavigatableState.Type
  let childType: any NavigatableState.Type
  /// Sets the child state on the parent (keeping one already there) and makes the request.
  let request: @MainActor (AnyObject, RouteStyle) -> RouteRequest?

  var childName: String { String(reflecting: childType) }
}
