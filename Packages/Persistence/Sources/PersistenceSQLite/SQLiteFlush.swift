import Persistence

/// What one flush's transaction did so far: the conflicts and refused writes it met, and what
/// to record in the process's versions once it commits.
@usableFromInline
struct SQLiteFlush: Sendable {
  let book: VersionBook
  /// This process's name in the change log.
  let origin: String
  /// The time the log records, in seconds since 1970.
  let writtenAt: Double
  /// The offset of the batch being applied, in the flush's batches.
  var batch = 0
  var conflicts: [PersistenceConflict] = []
  var rejected: [RejectedWrite] = []
  /// Records each table's writes in its versions: run once the transaction has committed.
  var committed: [@Sendable () -> Void] = []

  init(book: VersionBook, origin: String, writtenAt: Double) {
    self.book = book
    self.origin = origin
    self.writtenAt = writtenAt
  }
}
