/// Wraps a whole flush, so that a backend can commit every writer's batch as one unit.
///
/// The middleware calls it with a body that runs every writer's `persist`, in registration
/// order. A database backend collects what those calls stage and commits it in one
/// transaction after the body returns; see `SQLiteDatabase.flushTransaction` in
/// PersistenceSQLite. When it throws, every batch of the flush stays pending.
public struct FlushTransaction: Sendable {
  let run: @Sendable (_ body: () async throws -> Void) async throws -> Void

  /// Creates a transaction from a function that runs `body` and then commits.
  ///
  /// - Parameter run: Runs the flush's `body` (every writer's `persist`, in order), then
  ///   commits what it staged. It throws to fail the whole flush.
  public init(_ run: @escaping @Sendable (_ body: () async throws -> Void) async throws -> Void) {
    self.run = run
  }
}
