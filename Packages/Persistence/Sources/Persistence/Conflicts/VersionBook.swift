import Synchronization

/// What one app (a process on a SQLite file, an instance on PostgreSQL) knows of each row's
/// version: the version it last saw (loaded, wrote, or received from another writer), and, for
/// each row with a local change waiting for a flush, the version that change was made against.
///
/// It is the one conflict model of every backend: a backend asks it for the base version of
/// each row a flush writes (``bases(_:ids:)``), writes each row only at that version, reports a
/// row found at another version as a ``PersistenceConflict``, records what committed
/// (``committed(_:flushed:dropped:)``), and asks it whether another writer's change is news
/// (``applyRemote(_:id:version:isDeletion:)``). Ids are the rows' keys as text.
///
/// NB: the two versions differ when another writer's change arrives between a local edit and
/// its flush. The flush must be checked against the version the edit was made against, or it
/// would overwrite the other change without a conflict; so the base is taken when the change
/// is drained from the state (on the main actor, in order with the remote changes applied
/// there), not when the flush runs.
public final class VersionBook: Sendable {
  /// The versions of the rows of one table a flush writes: the base of each row, and the rows
  /// whose local change is dropped (a conflict resolved for the database's row).
  public struct FlushBases: Sendable {
    /// The version each row was last seen at; a row missing is new to this app.
    public var versions: [String: Int64] = [:]
    /// Rows whose change is dropped, at the database's version (`nil`: the row was deleted).
    public var dropped: [String: Int64?] = [:]

    /// No bases: every row is new.
    public init() {}
  }

  /// A row a flush wrote or deleted, at its new version.
  public struct Change: Sendable, Equatable {
    public let table: String
    public let id: String
    public let version: Int64
    public let isDeletion: Bool

    /// - Parameters:
    ///   - table: The table's name.
    ///   - id: The row's key, as text.
    ///   - version: The row's version after the change.
    ///   - isDeletion: Whether the row was deleted.
    public init(table: String, id: String, version: Int64, isDeletion: Bool) {
      self.table = table
      self.id = id
      self.version = version
      self.isDeletion = isDeletion
    }
  }

  /// What to do with a change another writer made.
  public enum RemoteVerdict: Sendable, Equatable {
    /// Apply it: it is news (recorded as seen).
    case apply
    /// Skip it: this app has seen that version or a later one (its own write, say).
    case alreadySeen
    /// Leave the row alone: a local change to it waits for a flush, which will report the
    /// conflict (applying it would hide the local change).
    case heldBack
  }

  private struct Table {
    var seen: [String: Int64] = [:]
    /// Rows with a local change queued, and the version it was made against (`nil`: new).
    var queued: [String: Int64?] = [:]
    var dropped: [String: Int64?] = [:]
  }

  private let tables = Mutex<[String: Table]>([:])

  /// An empty book: every row is new to it.
  public init() {}

  /// Records the versions of a table just loaded.
  ///
  /// - Complexity: O(*n*), the rows loaded.
  public func loaded(_ table: String, versions: [String: Int64]) {
    tables.withLock { $0[table, default: Table()].seen = versions }
  }

  /// Records that local changes to `ids` were drained: each keeps the version it was first
  /// changed at until a flush commits it.
  ///
  /// - Complexity: O(*c*), the ids.
  public func queued(_ table: String, ids: some Sequence<String>) {
    edit(table) { table in
      for id in ids where table.queued[id] == nil { table.queued[id] = .some(table.seen[id]) }
    }
  }

  /// Forgets the local changes to `ids` without a flush (the app discarded them): another
  /// writer's changes to those rows are news again.
  public func unqueued(_ table: String, ids: some Sequence<String>) {
    edit(table) { table in
      for id in ids { table.queued[id] = nil }
    }
  }

  /// The bases of the rows a batch writes or deletes.
  ///
  /// - Complexity: O(*c*), the ids.
  public func bases(_ table: String, ids: some Sequence<String>) -> FlushBases {
    tables.withLock { tables in
      var bases = FlushBases()
      guard let book = tables[table] else { return bases }
      for id in ids {
        let base: Int64? = if let queued = book.queued[id] { queued } else { book.seen[id] }
        bases.versions[id] = base
        if let dropped = book.dropped[id] { bases.dropped[id] = dropped }
      }
      return bases
    }
  }

  /// Records a committed flush: the versions it wrote, and that the rows it flushed (and the
  /// dropped ones) no longer wait for a flush.
  ///
  /// - Parameters:
  ///   - changes: The rows written or deleted, at their new versions.
  ///   - flushed: The ids of each table the flush took, written, dropped or already gone.
  ///   - dropped: The bases the flush read, by table, whose dropped rows it skipped.
  /// - Complexity: O(*c*), the rows of the flush.
  public func committed(
    _ changes: [Change], flushed: [String: [String]], dropped: [String: FlushBases]
  ) {
    tables.withLock { tables in
      for (name, ids) in flushed {
        for id in ids { tables[name]?.queued[id] = nil }
      }
      for (name, bases) in dropped {
        for (id, version) in bases.dropped {
          tables[name, default: Table()].seen[id] = version
          tables[name]?.dropped[id] = nil
        }
      }
      for change in changes {
        tables[change.table, default: Table()].seen[change.id] =
          change.isDeletion ? nil : change.version
      }
    }
  }

  /// Resolves `conflict`: with ``ConflictResolution/mine`` the next flush writes over the
  /// database's version; with ``ConflictResolution/theirs`` it drops the local change.
  public func resolve(_ conflict: PersistenceConflict, keeping resolution: ConflictResolution) {
    edit(conflict.table) { table in
      switch resolution {
      case .mine:
        table.queued[conflict.id] = .some(conflict.currentVersion)
        table.dropped[conflict.id] = nil
      case .theirs:
        table.dropped[conflict.id] = .some(conflict.currentVersion)
      }
    }
  }

  /// Records another writer's change, if it is news.
  public func applyRemote(_ table: String, id: String, version: Int64, isDeletion: Bool)
    -> RemoteVerdict
  {
    edit(table) { table in
      guard table.queued[id] == nil else { return .heldBack }
      if let seen = table.seen[id], seen >= version { return .alreadySeen }
      table.seen[id] = isDeletion ? nil : version
      return .apply
    }
  }

  /// Whether a local change to the row waits for a flush.
  public func isQueued(_ table: String, id: String) -> Bool {
    tables.withLock { $0[table]?.queued[id] != nil }
  }

  /// The rows of `table` this app has seen, at their versions (a feed that lost its place
  /// compares them with the table's).
  public func seen(_ table: String) -> [String: Int64] {
    tables.withLock { $0[table]?.seen ?? [:] }
  }

  private func edit<Result>(_ name: String, _ body: (inout Table) -> Result) -> Result {
    tables.withLock { body(&$0[name, default: Table()]) }
  }
}
