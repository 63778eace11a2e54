/// A row this instance wanted to write or delete that another instance changed first.
///
/// The flush that met it was rolled back and stays pending; it keeps failing until the app
/// chooses, with ``PostgresBackend/resolve(_:keeping:)``, whose change stands.
public struct PersistenceConflict: Sendable, Equatable, CustomStringConvertible {
  /// The table's name.
  public let table: String
  /// The entity's id, as stored.
  public let id: String
  /// The version this instance last read or wrote (`nil`: it never saw the row).
  public let expectedVersion: Int64?
  /// The version on the server now (`nil`: the row was deleted).
  public let currentVersion: Int64?
  /// The server's JSON of the row now (`nil`: the row was deleted), to show or to merge.
  public let currentJSON: String?

  public var description: String {
    "\(table) \(id): expected version \(expectedVersion.map(String.init) ?? "none"), "
      + "found \(currentVersion.map(String.init) ?? "a deletion")"
  }
}
