import Synchronization

/// The ``VersionTable`` of each table of one database, as one app sees them: what a backend
/// keeps so that no write overwrites another writer's change silently (see
/// ``VersionTable``), and resolves a ``PersistenceConflict`` on.
public final class VersionBook: Sendable {
  private let tables = Mutex<[String: any ResolvingByText]>([:])

  /// An empty book: every row of every table is new to it.
  public init() {}

  /// The versions of the table `name`, keyed by `Key`: made at the first call, the same object
  /// at every later one.
  ///
  /// - Parameters:
  ///   - name: The table's name.
  ///   - key: The type of its rows' keys; every call for one table names the same.
  /// - Returns: The table's versions.
  public func table<Key: Hashable & Sendable>(
    _ name: String, keyedBy key: Key.Type = Key.self
  ) -> VersionTable<Key> {
    tables.withLock { tables in
      if let existing = tables[name] {
        guard let table = existing as? VersionTable<Key> else {
          // NB: the library's own backends name one key type per table.
          preconditionFailure("VersionBook: table \(name) keyed by \(Key.self) and another type")
        }
        return table
      }
      let table = VersionTable<Key>(name)
      tables[name] = table
      return table
    }
  }

  /// Resolves `conflict` in its table: with ``ConflictResolution/mine`` the next flush writes
  /// over the other writer's version; with ``ConflictResolution/theirs`` it drops the local
  /// change.
  ///
  /// - Complexity: O(*n*) in the rows of the table: the conflict names its row as text.
  public func resolve(_ conflict: PersistenceConflict, keeping resolution: ConflictResolution) {
    let table = tables.withLock { $0[conflict.table] }
    table?.resolve(
      described: conflict.id, at: conflict.currentVersion, keeping: resolution)
  }
}

/// A ``VersionTable`` of any key type, resolved by a row's text.
protocol ResolvingByText: AnyObject, Sendable {
  func resolve(described text: String, at version: Int64?, keeping resolution: ConflictResolution)
}

extension VersionTable: ResolvingByText {
  func resolve(described text: String, at version: Int64?, keeping resolution: ConflictResolution) {
    guard let key = key(described: text) else { return }
    resolve(key, at: version, keeping: resolution)
  }
}
