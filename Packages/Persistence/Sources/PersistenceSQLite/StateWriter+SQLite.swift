public import EntityTracking
public import Persistence

extension StateWriter {
  /// A writer that persists the `EntityStore` at `keyPath` to `table`, without SQL, in the
  /// store's order, each row at the version this process last saw (see ``EntityTable``):
  /// loaded back with ``SQLiteDatabase/load(_:)``, the store is equal to the one saved.
  ///
  /// In a ``PersistenceMiddleware`` on the same database
  /// (``PersistenceMiddleware/init(database:writers:debounce:maxWait:retry:loopThreshold:clock:logger:)``),
  /// its batch joins the flush's single transaction; elsewhere it commits on its own.
  ///
  /// - Parameters:
  ///   - keyPath: Where the store lives in the state.
  ///   - table: The table that stores it.
  ///   - database: The database that holds the table.
  @inlinable
  public convenience init<Entity>(
    keyPath: WritableKeyPath<State, EntityStore<Entity>>,
    table: EntityTable<Entity>,
    database: SQLiteDatabase
  ) {
    // NB: inlinable, as the initializer it calls: the drain is specialized for the app's
    // entity.
    self.init(
      keyPath: keyPath, backend: database,
      versions: database.book.table(table.name, keyedBy: Entity.ID.self), key: { $0 },
      batch: { SQLiteBatch($0, into: table) })
  }
}
