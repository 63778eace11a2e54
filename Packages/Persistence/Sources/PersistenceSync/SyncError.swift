public import PersistenceSQLite

/// Why a ``SyncReplica`` could not push or pull.
public enum SyncError: Error, CustomStringConvertible {
  /// The remote could not answer (unreachable, failed): nothing was recorded; sync again later.
  case remote(any Error)
  /// The remote answered a push with another number of outcomes than changes.
  case malformedAnswer(String)
  /// The local database failed.
  case database(SQLiteDatabaseError)
  /// A remote row's id is not an id of the table's entity.
  case unknownID(table: String, id: String)
  /// No conflict of that table and id is waiting for a resolution.
  case noSuchConflict(table: String, id: String)

  public var description: String {
    switch self {
    case .remote(let error): "the remote cannot be reached: \(error)"
    case .malformedAnswer(let detail): "the remote's answer is malformed: \(detail)"
    case .database(let error): "the local database failed: \(error)"
    case .unknownID(let table, let id): "\(table): \(id) is not an id of the table's entity"
    case .noSuchConflict(let table, let id): "\(table) \(id): no conflict waits for a resolution"
    }
  }
}
