/// A type-erased ``Resolver`` built from a closure or from another resolver.
public struct AnyResolver<State: ReduxState, Action: ReduxAction>: Resolver {
  public let id: String
  @usableFromInline let handler: @MainActor @Sendable (ResolverContext<State, Action>) -> Void

  /// Creates a resolver from a closure.
  public init(
    id: String,
    handler: @escaping @MainActor @Sendable (ResolverContext<State, Action>) -> Void
  ) {
    self.id = id
    self.handler = handler
  }

  /// Wraps another resolver of the same state and action.
  public init<Wrapped: Resolver>(_ resolver: Wrapped)
  where Wrapped.State == State, Wrapped.Action == Action {
    self.init(id: resolver.id) { resolver.run($0) }
  }

  @inlinable
  @MainActor public func run(_ context: ResolverContext<State, Action>) {
    handler(context)
  }
}
