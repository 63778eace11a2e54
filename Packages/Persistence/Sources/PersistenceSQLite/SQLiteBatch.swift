public import GRDB
public import Persistence

/// One writer's batch for a ``SQLiteDatabase``: the statements that write it, run inside the
/// flush's transaction on the database's writer queue (encoding a large flush never blocks the
/// main actor).
public struct SQLiteBatch: Sendable {
  /// Writes the batch in the transaction's connection, recording in the flush what it wrote
  /// and what it met.
  @usableFromInline let apply: @Sendable (Database, inout SQLiteFlush) throws -> Void

  /// The batch that writes `changes` to `table`, each row at the version this process last
  /// saw, keeping the store's order (see ``EntityTable``).
  ///
  /// - Parameters:
  ///   - changes: A writer's changes.
  ///   - table: The table that stores the writer's entities.
  @inlinable
  public init<Entity>(_ changes: EntityChanges<Entity>, into table: EntityTable<Entity>) {
    // NB: inlinable, so that the versions' work on each row is specialized for the entity
    // (see ``FlushVersions``).
    let versions = FlushVersions<Entity.ID>()
    apply = { db, flush in try table.apply(changes, in: db, flush: &flush, versions: versions) }
  }

  /// A batch of the app's own statements, for entities stored in a schema of its own (no
  /// versions, no change log: other processes' feeds do not see them).
  ///
  /// - Parameter apply: Writes the batch through the transaction's connection; a throw rolls
  ///   the whole flush back.
  public init(_ apply: @escaping @Sendable (Database) throws -> Void) {
    self.apply = { db, _ in try apply(db) }
  }
}
