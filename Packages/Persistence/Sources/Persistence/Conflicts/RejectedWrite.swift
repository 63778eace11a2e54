/// A write the database refused for good: retrying it as it is cannot succeed (an entity that
/// does not encode, a value the column cannot hold, a constraint it breaks).
///
/// One such write never stops the others: a ``PersistenceMiddleware`` sets it aside, commits
/// the rest of the flush, reports it once (``PersistenceStatus/rejected``, the flush's
/// ``PersistenceMiddlewareError/rejected(_:)``, the log) and keeps it until the app decides:
/// change the entity (the new value replaces it in the next flush), keep it for later
/// (``PersistenceMiddleware/retryRejected(_:)``), or drop it
/// (``PersistenceMiddleware/discardRejected(_:)``).
public struct RejectedWrite: Sendable, Equatable, CustomStringConvertible {
  /// Why the database refused it.
  public enum Reason: Sendable, Equatable, CustomStringConvertible {
    /// The entity did not encode (a non-finite number, a failing `encode(to:)`).
    case unencodable(String)
    /// The database refused the value (a data error, a constraint): its code and message.
    case refused(code: String, message: String)

    public var description: String {
      switch self {
      case .unencodable(let message): "does not encode: \(message)"
      case .refused(let code, let message): "refused by the database (\(code)): \(message)"
      }
    }
  }

  /// The offset, in the batches of the refused commit, of the batch that holds the write.
  public let batch: Int
  /// The table's name.
  public let table: String
  /// The entity's id, as stored (its description).
  public let id: String
  /// Whether the write was a deletion.
  public let isDeletion: Bool
  /// Why it was refused.
  public let reason: Reason

  /// Creates a rejected write (a backend reports them in ``RejectedWrites``).
  ///
  /// - Parameters:
  ///   - batch: The offset of its batch in the batches the backend was asked to commit.
  ///   - table: The table's name.
  ///   - id: The entity's id, as stored.
  ///   - isDeletion: Whether it was a deletion.
  ///   - reason: Why it was refused.
  public init(batch: Int, table: String, id: String, isDeletion: Bool = false, reason: Reason) {
    self.batch = batch
    self.table = table
    self.id = id
    self.isDeletion = isDeletion
    self.reason = reason
  }

  public var description: String {
    "\(table) \(id)\(isDeletion ? " (deletion)" : ""): \(reason)"
  }
}

/// What a backend throws when a flush holds writes it can never store: it rolled the whole
/// flush back and names them, so that a ``PersistenceMiddleware`` sets them aside and commits
/// the rest at once.
public struct RejectedWrites: Error, Sendable, CustomStringConvertible {
  /// The writes refused, each once.
  public let writes: [RejectedWrite]

  /// - Parameter writes: The writes refused.
  public init(_ writes: [RejectedWrite]) {
    self.writes = writes
  }

  public var description: String {
    "\(writes.count) write(s) refused: " + writes.map(\.description).joined(separator: "; ")
  }
}
