import GRDB
import Synchronization

/// Collects the writes of one flush, so that ``SQLiteDatabase/flushTransaction`` commits all
/// writers' batches in one transaction.
///
/// While a flush transaction runs its body, ``current`` is the staging of that flush: a writer
/// persisting to the same database appends its work here instead of writing at once.
final class FlushStaging: Sendable {
  typealias Work = @Sendable (Database) throws -> Void

  /// The staging of the flush running in this task, if any.
  @TaskLocal static var current: FlushStaging?

  /// The database whose transaction commits the staged work.
  let database: ObjectIdentifier
  private let staged = Mutex<[Work]>([])

  init(database: ObjectIdentifier) {
    self.database = database
  }

  func stage(_ work: @escaping Work) {
    staged.withLock { $0.append(work) }
  }

  /// Takes the staged work, in the order it was staged (writer registration order).
  func take() -> [Work] {
    staged.withLock { staged in
      defer { staged = [] }
      return staged
    }
  }
}
