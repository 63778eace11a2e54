/// Where an instance is in the change feed: every change committed by a transaction older than
/// this point has been read.
///
/// NB: a transaction id bound, not a sequence number: sequence numbers are taken in insertion
/// order but become visible in commit order, so a reader "after number N" skips rows a long
/// transaction commits late. Transactions below the snapshot's `xmin` have all finished, so no
/// row can appear behind this cursor later.
public struct ChangeFeedCursor: Sendable, Hashable, CustomStringConvertible {
  /// The `xid8` bound, as PostgreSQL prints it.
  let xmin: String

  public var description: String { "xmin \(xmin)" }
}

/// One row written or deleted by a flush, as the change log records it.
public struct ChangeRecord: Sendable, Equatable {
  /// How long it waited in the log before this read (for the feed's lag).
  let waited: Duration

  /// The sequence number of its log row (taken in insertion order, not commit order). The rows
  /// one flush writes to one table share a log row, and its number.
  public let sequence: Int64
  /// The table's name.
  public let table: String
  /// The entity's id, as stored.
  public let id: String
  /// The row's version after the change.
  public let version: Int64
  /// Whether the row was deleted.
  public let isDeletion: Bool
  /// The instance whose flush wrote it.
  public let origin: String
}
