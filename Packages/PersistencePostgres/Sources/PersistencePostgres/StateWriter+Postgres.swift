public import EntityTracking
public import Persistence

extension StateWriter {
  /// A writer that persists the `EntityStore` at `keyPath` to `table`, in the store's order,
  /// each row at the version this instance last saw (see ``PostgresBackend``). In a
  /// `PersistenceMiddleware(backend: database, …)`, its batch joins the flush's single
  /// transaction.
  ///
  /// - Parameters:
  ///   - keyPath: Where the store lives in the state.
  ///   - table: The table that stores it.
  ///   - database: The database that holds the table.
  @inlinable
  public convenience init<Entity>(
    keyPath: WritableKeyPath<State, EntityStore<Entity>>,
    table: PostgresTable<Entity>,
    database: PostgresBackend
  ) {
    // NB: inlinable, as the initializer it calls: the drain is specialized for the app's
    // entity.
    self.init(
      keyPath: keyPath, backend: database,
      versions: database.book.table(table.name, keyedBy: Entity.ID.self), key: { $0 },
      batch: { table.batch($0, versions: BatchVersions.init) })
  }
}
