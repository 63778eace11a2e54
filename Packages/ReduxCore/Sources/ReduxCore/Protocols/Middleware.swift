/// A step of the dispatch pipeline that runs before the reducers.
///
/// A middleware may forward the action (`context.next()`), forward another one
/// (`context.next(other)`), block it (never call `next`), dispatch more actions, start async work
/// with `context.task`, or throw. A throw, or `context.resolve(error)`, routes the error to the
/// resolvers with ``Origin/middleware(_:)``.
///
/// Middlewares run first-registered-first in onion order: code after `next()` runs after the
/// reducers, innermost middleware first.
public protocol Middleware<State, Action>: Identifiable, Sendable where ID == String {
  /// The state of the store the middleware runs in.
  associatedtype State: ReduxState
  /// The action of the store the middleware runs in.
  associatedtype Action: ReduxAction

  /// The identity reported in logs and in ``Origin/middleware(_:)``.
  var id: String { get }

  /// Handles one action.
  ///
  /// - Parameter context: The action and what the middleware may do with it.
  /// - Throws: Any error; it reaches the resolvers with this middleware as its origin.
  @MainActor func run(_ context: MiddlewareContext<State, Action>) throws
}
