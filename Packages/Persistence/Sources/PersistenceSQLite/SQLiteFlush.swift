import Persistence

/// What one flush's transaction did so far: the rows it wrote (for the versions this process
/// has seen), the rows it took, and the conflicts and refused writes it met.
struct SQLiteFlush: Sendable {
  let book: VersionBook
  /// This process's name in the change log.
  let origin: String
  /// The time the log records, in seconds since 1970.
  let writtenAt: Double
  /// The offset of the batch being applied, in the flush's batches.
  var batch = 0
  var written: [VersionBook.Change] = []
  var flushed: [String: [String]] = [:]
  var dropped: [String: VersionBook.FlushBases] = [:]
  var conflicts: [PersistenceConflict] = []
  var rejected: [RejectedWrite] = []

  init(book: VersionBook, origin: String, writtenAt: Double) {
    self.book = book
    self.origin = origin
    self.writtenAt = writtenAt
  }
}
