/// A database that a ``PersistenceMiddleware`` flushes to: it receives every writer's batch of a
/// flush at once and commits them in one transaction, so that after a crash the database holds
/// all of a flush or none of it.
///
/// A backend says what a writer's batch is to it (``Batch``): PersistenceSQLite's
/// `SQLiteDatabase` takes the statements to run in its transaction. A writer is bound to a
/// backend by ``StateWriter/init(keyPath:backend:batch:drained:)``; a middleware created with
/// ``PersistenceMiddleware/init(backend:writers:debounce:maxWait:retry:loopThreshold:clock:logger:)``
/// hands that backend the batches of all its writers bound to it, in one ``commit(_:)`` per
/// flush.
///
/// ```swift
/// final class Ledger: PersistenceBackend {
///   func commit(_ batches: [[LedgerRow]]) async throws {
///     try await connection.transaction { for rows in batches { try await insert(rows) } }
///   }
/// }
/// ```
public protocol PersistenceBackend: AnyObject, Sendable {
  /// One writer's batch in the form this backend writes it.
  associatedtype Batch: Sendable

  /// Commits `batches` — the batches of one flush, in writer registration order — in one
  /// transaction: all of them, or none when it throws.
  ///
  /// - Parameter batches: The writers' batches, leaf entities first.
  /// - Throws: Why the transaction did not commit; the flush's changes then stay pending and
  ///   are retried.
  func commit(_ batches: [Batch]) async throws
}

/// A writer's batch for a backend, kept with the backend it is for, so that a middleware
/// can tell whether the batch joins its flush's transaction.
@usableFromInline
struct BackendBatch: Sendable {
  private let backend: any PersistenceBackend
  private let batch: any Sendable

  @usableFromInline
  init<Backend: PersistenceBackend>(_ batch: Backend.Batch, for backend: Backend) {
    self.backend = backend
    self.batch = batch
  }

  /// The batch, if it is for `backend` (the same instance).
  ///
  /// NB: when the instances are the same, so are their types, and the cast cannot fail.
  func batch<Backend: PersistenceBackend>(for backend: Backend) -> Backend.Batch? {
    guard self.backend === backend else { return nil }
    return batch as? Backend.Batch
  }
}
