public import Persistence

/// What one ``SyncReplica/sync()`` (or push, or pull) did.
public struct SyncReport: Sendable, Equatable {
  /// Local changes the remote applied.
  public var pushed = 0
  /// Local changes the remote refused (see ``SyncReplica/conflicts()``).
  public var conflicts: [PersistenceConflict] = []
  /// Remote changes written into the file.
  public var pulled = 0

  /// Nothing done yet.
  public init() {}
}
