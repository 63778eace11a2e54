/// Wraps a whole flush, so that a backend can commit every writer's batch as one unit.
///
/// The middleware calls it with a body that runs every writer's `persist`, in registration
/// order. A database backend collects what those calls stage and commits it in one
/// transaction after the body returns; see `SQLiteDatabase.flushTransaction` in
/// PersistenceSQLite. When it throws, every batch of the flush stays pending.
public struct FlushTransaction: Sendable {
  private let perform: @Sendable (_ body: () async throws -> Void) async throws -> Void

  /// Creates a transaction from a function that runs `body` and then commits.
  ///
  /// - Parameter run: Runs `body` (every writer's `persist`), then commits what it staged;
  ///   it throws, without committing, when `body` throws or the commit fails.
  public init(_ run: @escaping @Sendable (_ body: () async throws -> Void) async throws -> Void) {
    perform = run
  }

  /// Runs `body` in the transaction and commits it: for a transaction that wraps another
  /// (to observe or instrument each flush, as the crash test's writer does).
  ///
  /// - Parameter body: The work whose writes the transaction commits as one.
  /// - Throws: What `body` or the commit threw; then nothing is committed.
  public func run(_ body: () async throws -> Void) async throws {
    try await perform(body)
  }
}
