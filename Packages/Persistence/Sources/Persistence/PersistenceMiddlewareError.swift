/// Why the persistence middleware could not do what it was asked.
public enum PersistenceMiddlewareError: Error, Sendable {
  /// ``PersistenceMiddleware/shutdown()`` was called: no more work is accepted.
  case shutdown
  /// A flush failed; its changes stay pending and are retried. `pending` counts the ids still
  /// waiting, across all writers.
  case flushFailed(underlying: any Error, pending: Int)
  /// The database refused these writes for good; everything else of the flush committed. They
  /// are set aside until the app decides (see ``RejectedWrite``).
  case rejected([RejectedWrite])
}

extension PersistenceMiddlewareError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .shutdown:
      "persistence is shut down"
    case .flushFailed(let underlying, let pending):
      "flush failed (\(pending) changes still pending): \(underlying)"
    case .rejected(let writes):
      "the database refused \(writes.count) write(s), set aside (the rest is saved): "
        + writes.map(\.description).joined(separator: "; ")
    }
  }
}

extension PersistenceMiddlewareError {
  /// The conflicts of a flush that failed on rows another writer changed first, whatever
  /// the database; empty for any other failure.
  public var conflicts: [PersistenceConflict] {
    guard case .flushFailed(let underlying, _) = self,
      let reporting = underlying as? any PersistenceConflictReporting
    else { return [] }
    return reporting.conflicts
  }
}
