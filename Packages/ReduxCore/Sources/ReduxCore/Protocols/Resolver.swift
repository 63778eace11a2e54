/// An error handler for errors thrown or resolved by middlewares.
///
/// Resolvers run first-registered-first. Each one forwards the error to the next with
/// `context.next()`; a resolver that does not forward ends the chain. An error that runs past
/// the last resolver (or meets no resolver at all) is reported as
/// ``Store/Event/unresolvedError(_:action:origin:)`` through the store's `onLog`.
public protocol Resolver<State, Action>: Identifiable, Sendable where ID == String {
  /// The state of the store the resolver runs in.
  associatedtype State: ReduxState
  /// The action of the store the resolver runs in.
  associatedtype Action: ReduxAction

  /// The identity reported in logs.
  var id: String { get }

  /// Handles one error. Resolvers cannot throw: they recover, dispatch, or forward.
  @MainActor func run(_ context: ResolverContext<State, Action>)
}
