/// What the persistence middleware is doing, for the app to show or monitor.
///
/// Every change is in one of four states: *accepted* (recorded in an `EntityStore`),
/// *queued* (drained into a writer: ``pendingCount``), *committed* (``lastFlush``) or *failed*
/// (still queued, with ``lastError`` set, and retried).
public struct PersistenceStatus: Sendable {
  /// Ids drained from the state and not yet persisted, across all writers.
  public internal(set) var pendingCount = 0
  /// Whether a flush is running.
  public internal(set) var isFlushing = false
  /// The error of the last flush, if it failed; `nil` once a flush succeeds.
  public internal(set) var lastError: (any Error)?
  /// Failed flushes since the last successful one.
  public internal(set) var consecutiveFailures = 0
  /// The last successful flush.
  public internal(set) var lastFlush: FlushReport?
  /// Writes the database refused for good (see ``RejectedWrite``): set aside from the flushes,
  /// in writer order, until the app changes those entities, retries or discards the writes.
  public internal(set) var rejected: [RejectedWrite] = []
  /// Whether ``PersistenceMiddleware/shutdown()`` was called.
  public internal(set) var isShutdown = false
}

/// A flush that committed.
public struct FlushReport: Sendable, Equatable {
  /// Counts successful flushes, from 1.
  public let number: Int
  /// The number of entity writes and deletions it persisted.
  public let changes: Int
  /// When it committed, measured on the middleware's clock from the middleware's creation.
  public let committedAt: Duration
}
