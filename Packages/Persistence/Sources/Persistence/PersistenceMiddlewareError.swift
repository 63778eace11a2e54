/// Why the persistence middleware could not do what it was asked.
public enum PersistenceMiddlewareError: Error, Sendable {
  /// ``PersistenceMiddleware/shutdown()`` was called: no more work is accepted.
  case shutdown
  /// A flush failed; its changes stay pending and are retried. `pending` counts the ids still
  /// waiting, across all writers.
  case flushFailed(underlying: any Error, pending: Int)
}

extension PersistenceMiddlewareError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .shutdown:
      "persistence is shut down"
    case .flushFailed(let underlying, let pending):
      "flush failed (\(pending) changes still pending): \(underlying)"
    }
  }
}
