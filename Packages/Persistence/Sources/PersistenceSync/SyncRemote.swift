public import Persistence

/// The other side of a ``SyncReplica``: a server (`board-server` over HTTP), or
/// ``InMemorySyncRemote`` in this process. Rows travel as JSON, named by table and id, with the
/// remote's version of each, as a ``/Persistence/PersistenceConflict`` carries them.
///
/// ## The contract a remote keeps
/// - **Push** applies each change in order, each on its own, and answers one ``SyncOutcome`` per
///   change, in the same order.
/// - **Idempotent**: a change whose ``SyncChange/key`` it has applied before is not applied
///   again; the outcome it gave then is given again. A push retried after a lost reply moves
///   each row's version by one.
/// - **No silent overwrite**: a change applies when its ``SyncChange/baseVersion`` is the row's
///   version (`nil`: no row), or when the row's version was written by the same replica (its
///   own earlier push, whose reply it may not have read: nobody else wrote in between).
///   Otherwise it is a conflict carrying the row as it is now, and nothing is written.
/// - **Pull** returns every change after a cursor, in the order applied, with a cursor to ask
///   from next: no change is skipped, and a change the replica pushed comes back too (the
///   replica knows it by its version).
/// - **Or starts over**: a remote that no longer has the changes after a cursor (it forgot its
///   history, restarted, or is another server) answers from its start instead, its first page
///   marked ``SyncPage/startsOver``, and then every row it holds. The replica deletes the rows
///   it had from the remote that the replay did not bring (the deletions it missed).
/// - A thrown error means the remote could not answer (unreachable, failed): the replica
///   records nothing and tries again later. A push that was applied and whose reply was lost
///   is retried with the same keys.
public protocol SyncRemote: Sendable {
  /// Applies `changes` in order, each at most once.
  ///
  /// - Parameters:
  ///   - changes: Local changes, at most one per row.
  ///   - replica: The replica that made them (``SyncReplica/replica``).
  /// - Returns: One outcome per change, in order.
  func push(_ changes: [SyncChange], from replica: String) async throws -> [SyncOutcome]

  /// The changes after `cursor`, in the order applied.
  ///
  /// - Parameters:
  ///   - cursor: Where the last pull ended (its page's ``SyncPage/cursor``); `nil`: from the
  ///     start.
  ///   - limit: The most changes to return.
  /// - Returns: The changes, and where the next pull starts; no changes once up to date.
  func pull(after cursor: String?, limit: Int) async throws -> SyncPage
}

/// One row a replica pushes: its value now, or its deletion.
public struct SyncChange: Sendable, Equatable, Codable {
  /// Names the change for idempotency: the same key is applied once.
  public let key: String
  /// The table's name.
  public let table: String
  /// The entity's id, as stored.
  public let id: String
  /// The row as JSON, `nil` for a deletion.
  public let json: String?
  /// The remote's version of the row the change was made on (`nil`: the replica never had it).
  public let baseVersion: Int64?

  /// Creates a change (a replica does).
  public init(key: String, table: String, id: String, json: String?, baseVersion: Int64?) {
    self.key = key
    self.table = table
    self.id = id
    self.json = json
    self.baseVersion = baseVersion
  }
}

/// What a remote did with one ``SyncChange``.
public enum SyncOutcome: Sendable, Equatable, Codable {
  /// Applied: the row's version now (`nil`: the row is deleted).
  case applied(version: Int64?)
  /// Refused: another writer changed, deleted or created the row first; nothing was written.
  case conflict(PersistenceConflict)
}

/// One change a remote applied, as a pull returns it.
public struct SyncedRow: Sendable, Equatable, Codable {
  /// The table's name.
  public let table: String
  /// The entity's id, as stored.
  public let id: String
  /// The row as JSON after the change, `nil` for a deletion.
  public let json: String?
  /// The row's version after the change.
  public let version: Int64
  /// The replica (or other writer) that made it.
  public let writer: String

  /// Creates a row (a remote does).
  public init(table: String, id: String, json: String?, version: Int64, writer: String) {
    self.table = table
    self.id = id
    self.json = json
    self.version = version
    self.writer = writer
  }
}

/// One page of a pull.
public struct SyncPage: Sendable, Equatable, Codable {
  /// The changes, in the order the remote applied them.
  public let rows: [SyncedRow]
  /// Where the next pull starts.
  public let cursor: String
  /// Whether the remote answers from its start: it does not know the cursor it was asked
  /// from. The pages up to the one that is empty hold every row the remote has; a row the
  /// replica had from the remote and the replay does not bring was deleted.
  public let startsOver: Bool

  /// Creates a page (a remote does).
  public init(rows: [SyncedRow], cursor: String, startsOver: Bool = false) {
    self.rows = rows
    self.cursor = cursor
    self.startsOver = startsOver
  }
}
