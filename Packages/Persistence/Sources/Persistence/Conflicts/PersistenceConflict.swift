/// A row this app wanted to write or delete that another writer (another process on the same
/// SQLite file, another instance on the same PostgreSQL database) changed, deleted or created
/// first, since this app loaded or last saw it.
///
/// The flush that met it was rolled back and stays pending; it keeps failing until the app
/// chooses, with the backend's `resolve(_:keeping:)` (or `keepTheirs(_:in:)`), whose change
/// stands. Every backend reports conflicts with this type and resolves them with the same
/// choices (``ConflictResolution``), through one ``VersionBook``.
public struct PersistenceConflict: Sendable, Equatable, Codable, CustomStringConvertible {
  /// The table's name.
  public let table: String
  /// The entity's id, as stored.
  public let id: String
  /// The version this app last read or wrote (`nil`: it never saw the row).
  public let expectedVersion: Int64?
  /// The version in the database now (`nil`: the row was deleted).
  public let currentVersion: Int64?
  /// The database's JSON of the row now (`nil`: the row was deleted), to show or to merge.
  public let currentJSON: String?

  /// Creates a conflict (a backend reports them).
  ///
  /// - Parameters:
  ///   - table: The table's name.
  ///   - id: The entity's id, as stored.
  ///   - expectedVersion: The version the write was based on (`nil`: none).
  ///   - currentVersion: The version found (`nil`: the row is gone).
  ///   - currentJSON: The row found, as JSON.
  public init(
    table: String, id: String, expectedVersion: Int64?, currentVersion: Int64?,
    currentJSON: String?
  ) {
    self.table = table
    self.id = id
    self.expectedVersion = expectedVersion
    self.currentVersion = currentVersion
    self.currentJSON = currentJSON
  }

  public var description: String {
    "\(table) \(id): expected version \(expectedVersion.map(String.init) ?? "none"), "
      + "found \(currentVersion.map(String.init) ?? "a deletion")"
  }
}

/// Whose change stands when a ``PersistenceConflict`` is resolved.
public enum ConflictResolution: Sendable, Equatable {
  /// This app's pending change: the next flush overwrites the database's row.
  case mine
  /// The database's row: this app's pending change to it is dropped at the next flush (load
  /// the database's value into the state, for instance with the backend's `keepTheirs`).
  case theirs
}

/// What a write does to a row another writer changed since this app saw it.
public enum ConflictPolicy: Sendable, Equatable {
  /// Refuse the flush with the conflicts (the default): nothing is overwritten silently.
  case reject
  /// Overwrite: the last flush wins. Only when the app asks for it.
  case lastWriterWins
}

/// An error that carries conflicts: the backends' errors conform, so that an app reads the
/// conflicts of a failed flush without knowing its database (see
/// ``PersistenceMiddlewareError/conflicts``).
public protocol PersistenceConflictReporting: Error {
  /// The conflicts the failed write met; empty when it failed for another reason.
  var conflicts: [PersistenceConflict] { get }
}
