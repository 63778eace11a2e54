/// A type-erased ``Middleware`` built from a closure or from another middleware.
public struct AnyMiddleware<State: ReduxState, Action: ReduxAction>: Middleware {
  public let id: String
  @usableFromInline let handler:
    @MainActor @Sendable (MiddlewareContext<State, Action>) throws -> Void

  /// Creates a middleware from a closure.
  ///
  /// - Parameters:
  ///   - id: The identity reported in logs and in ``Origin/middleware(_:)``.
  ///   - handler: The body of ``Middleware/run(_:)``.
  public init(
    id: String,
    handler: @escaping @MainActor @Sendable (MiddlewareContext<State, Action>) throws -> Void
  ) {
    self.id = id
    self.handler = handler
  }

  /// Wraps another middleware of the same state and action.
  public init<Wrapped: Middleware>(_ middleware: Wrapped)
  where Wrapped.State == State, Wrapped.Action == Action {
    self.init(id: middleware.id) { try middleware.run($0) }
  }

  @inlinable
  @MainActor public func run(_ context: MiddlewareContext<State, Action>) throws {
    try handler(context)
  }
}

/// A middleware that keeps its own mutable state in a coordinator object across dispatches.
///
/// ```swift
/// final class Counter: Sendable { let seen = Mutex(0) }
/// let counting = StatedMiddleware<AppState, AppAction>(id: "count", coordinator: Counter()) {
///   counter, context in
///   counter.seen.withLock { $0 += 1 }
///   context.next()
/// }
/// ```
public struct StatedMiddleware<State: ReduxState, Action: ReduxAction>: Middleware {
  public let id: String
  private let handler: @MainActor @Sendable (MiddlewareContext<State, Action>) throws -> Void

  /// Creates a middleware whose handler receives `coordinator` on every run.
  public init<Coordinator: AnyObject & Sendable>(
    id: String,
    coordinator: Coordinator,
    handler:
      @escaping @MainActor @Sendable (Coordinator, MiddlewareContext<State, Action>) throws
      -> Void
  ) {
    self.id = id
    self.handler = { try handler(coordinator, $0) }
  }

  @MainActor public func run(_ context: MiddlewareContext<State, Action>) throws {
    try handler(context)
  }
}
