public import Logging
public import Observation

/// Shows a root screen and the screens routed from it, as a plain stack any front end renders.
///
/// ```swift
/// let navigator = Navigator(flow: flow, root: ViewModelOf<Home>(initialState: .init(), reducer: Home()))
/// home.send(.open(item))          // the reducer routes: navigator.screens gains a Detail screen
/// navigator.pop()                 // back: Home's `detail` state is nil again
/// try navigator.open([RouteRecord(Detail.State.self)])   // a deep link, checked whole first
/// ```
///
/// Removing a screen (pop, dismiss, a route that replaces it) sets its parent's child state back
/// to `nil` and releases its view model, which cancels its procedures.
@MainActor
@Observable
public final class Navigator<Screen> {
  /// One routed screen.
  public struct Entry {
    /// How the screen was shown.
    public let style: RouteStyle
    /// The screen's view model.
    public let viewModel: any DLViewModelProtocol
    let detach: () -> Void
    /// The screen this one replaced: hidden, but alive, since this screen's events go to it.
    var replaced: (any DLViewModelProtocol)? = nil
  }

  /// The bottom screen.
  public private(set) var root: any DLViewModelProtocol
  /// The routed screens, bottom first.
  public private(set) var stack: [Entry] = []

  /// The screens this navigator may show, and how to build them.
  @ObservationIgnored public let flow: NavigationFlow<Screen>
  @ObservationIgnored private let logger: Logger
  /// Roots replaced by `.replace` routes: hidden, but alive, since the new root's events go to them.
  @ObservationIgnored private var replacedRoots: [any DLViewModelProtocol] = []

  /// Creates a navigator showing `root` alone.
  ///
  /// - Parameters:
  ///   - flow: The screens it may show and how to build them.
  ///   - root: The bottom screen's view model.
  ///   - logger: Where refused routes are reported.
  public init<Root: NavigatableState>(
    flow: NavigationFlow<Screen>,
    root: DLViewModel<Root>,
    logger: Logger = Logger(label: "ReduxKit.FeatureKit.Navigator")
  ) {
    self.flow = flow
    self.root = root
    self.logger = logger
    StateChannels.setNavigator(self, for: root.state)
  }

  isolated deinit {
    // NB: the channels' weak references to this navigator are already nil; drop the channels
    // left empty (another navigator may show the same states now).
    for viewModel in [root] + stack.map(\.viewModel) + replacedRoots {
      StateChannels.prune(viewModel.stateObject)
    }
  }

  /// What the front end renders, bottom first: the flow's builder applied to every screen.
  ///
  /// - Complexity: O(*n*) builder calls, for *n* screens.
  public var screens: [Screen] {
    ([root] + stack.map(\.viewModel)).compactMap { flow.screenBuilder($0) }
  }

  /// The top screen's view model.
  public var top: any DLViewModelProtocol { stack.last?.viewModel ?? root }

  /// The stack as data: save it with the root state, and ``restore(_:)`` it later.
  ///
  /// - Complexity: O(*n*), for *n* routed screens.
  public var routeStack: [RouteRecord] {
    stack.map {
      RouteRecord(state: String(reflecting: type(of: $0.viewModel.stateObject)), style: $0.style)
    }
  }

  /// Removes the top screen (a back button).
  ///
  /// - Complexity: O(1), plus releasing the screen's view model.
  public func pop() {
    removeEntries(from: stack.count - 1)
  }

  /// Removes every routed screen.
  ///
  /// - Complexity: O(*n*), for *n* routed screens.
  public func popToRoot() {
    removeEntries(from: 0)
  }

  /// Removes the top presented screen and what it pushed; pops the top screen if none is
  /// presented.
  ///
  /// - Complexity: O(*n*), for *n* routed screens.
  public func dismiss() {
    removeEntries(from: stack.lastIndex { $0.style == .present } ?? stack.count - 1)
  }

  /// Follows `routes` from the root, replacing the current stack, after checking all of them:
  /// an invalid step throws and changes nothing.
  ///
  /// - Parameter routes: The screens to show above the root, bottom first.
  /// - Throws: ``RouteError/invalidDeepLink(index:_:)`` naming the first step the flow has no
  ///   registered route for; the stack is then unchanged. The refusal is logged too.
  /// - Complexity: O(*n* × *r*) for *n* steps and *r* registered routes.
  public func open(_ routes: [RouteRecord]) throws(RouteError) {
    var parentType = type(of: root.stateObject) as? any NavigatableState.Type
    var steps: [RegisteredRoute] = []
    for (index, record) in routes.enumerated() {
      guard let from = parentType, let step = flow.route(from: from, to: record.state) else {
        let reason = RouteError.noRoute(
          from: parentType.map { String(reflecting: $0) } ?? "?", to: record.state)
        throw refuse(.invalidDeepLink(index: index, reason))
      }
      steps.append(step)
      parentType = step.childType
    }
    popToRoot()
    for (step, record) in zip(steps, routes) {
      guard let request = step.request(top.stateObject, record.style) else {
        throw refuse(.notInNavigation(String(reflecting: step.parentType)))
      }
      try route(request)
    }
  }

  /// Rebuilds a saved stack over the current root, whose state (restored with it) already holds
  /// the child states: the same checks as ``open(_:)``.
  ///
  /// - Parameter routeStack: A saved ``routeStack``.
  /// - Throws: ``RouteError``, as ``open(_:)`` does; the stack is then unchanged.
  /// - Complexity: O(*n* × *r*) for *n* steps and *r* registered routes.
  public func restore(_ routeStack: [RouteRecord]) throws(RouteError) {
    try open(routeStack)
  }

  func refuse(_ error: RouteError) -> RouteError {
    logger.error("route refused: \(error)")
    return error
  }

  /// The index of the screen showing `state`: -1 for the root, `nil` if it is not shown.
  private func index(of state: AnyObject) -> Int? {
    if root.stateObject === state { return -1 }
    return stack.lastIndex { $0.viewModel.stateObject === state }
  }

  private func removeEntries(from start: Int) {
    guard start >= 0, start < stack.count else { return }
    let removed = stack[start...]
    stack.removeSubrange(start...)
    for entry in removed.reversed() {
      StateChannels.setNavigator(nil, for: entry.viewModel.stateObject)
      entry.detach()
    }
  }
}

extension Navigator: RouteHandling {
  func route(_ request: RouteRequest) throws(RouteError) {
    guard flow.isRegistered(request.childType) else {
      throw refuse(.unregisteredState(String(reflecting: request.childType)))
    }
    guard let parentIndex = index(of: request.parent),
      let (child, detach) = request.attach(parentIndex < 0 ? root : stack[parentIndex].viewModel)
    else {
      throw refuse(.notInNavigation(String(reflecting: type(of: request.parent))))
    }
    switch request.style {
    case .push, .present:
      removeEntries(from: parentIndex + 1)
      stack.append(Entry(style: request.style, viewModel: child, detach: detach))
    case .replace where parentIndex < 0:
      removeEntries(from: 0)
      StateChannels.setNavigator(nil, for: root.stateObject)
      replacedRoots.append(root)
      root = child
    case .replace:
      let replaced = stack[parentIndex]
      removeEntries(from: parentIndex + 1)
      StateChannels.setNavigator(nil, for: replaced.viewModel.stateObject)
      stack[parentIndex] = Entry(
        style: replaced.style, viewModel: child,
        detach: {
          detach()
          replaced.detach()
        },
        replaced: replaced.viewModel)
    }
    StateChannels.setNavigator(self, for: child.stateObject)
  }

  func pop(from state: AnyObject) {
    guard let index = index(of: state) else { return }
    removeEntries(from: index)
  }

  func dismiss(from state: AnyObject) {
    guard let index = index(of: state), index >= 0 else { return }
    removeEntries(from: stack[...index].lastIndex { $0.style == .present } ?? index)
  }
}

extension DLViewModelProtocol {
  /// The state, as an object.
  var stateObject: AnyObject { state }
}
