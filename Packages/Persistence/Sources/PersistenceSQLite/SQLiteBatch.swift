public import GRDB
public import Persistence

/// One writer's batch for a ``SQLiteDatabase``: the statements that write it, run inside the
/// flush's transaction on the database's writer queue (encoding a large flush never blocks the
/// main actor).
public struct SQLiteBatch: Sendable {
  /// Writes the batch in the transaction's connection.
  let apply: @Sendable (Database) throws -> Void

  /// The batch that writes `changes` to `table`, keeping the store's order (see
  /// ``EntityTable``).
  ///
  /// - Parameters:
  ///   - changes: A writer's changes.
  ///   - table: The table that stores the writer's entities.
  public init<Entity>(_ changes: EntityChanges<Entity>, into table: EntityTable<Entity>) {
    apply = { db in try table.apply(changes, in: db) }
  }

  /// A batch of the app's own statements, for entities stored in a schema of its own.
  ///
  /// - Parameter apply: Writes the batch through the transaction's connection; a throw rolls
  ///   the whole flush back.
  public init(_ apply: @escaping @Sendable (Database) throws -> Void) {
    self.apply = apply
  }
}
