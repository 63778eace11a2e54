public import EntityTracking
public import Persistence

extension StateWriter {
  /// A writer that persists the `EntityStore` at `keyPath` to `table`, without SQL.
  ///
  /// Inside a flush of a ``PersistenceMiddleware`` created with
  /// ``PersistenceMiddleware/init(database:writers:debounce:maxWait:retry:loopThreshold:clock:logger:)``,
  /// its writes join the flush's single transaction.
  ///
  /// - Parameters:
  ///   - keyPath: Where the store lives in the state.
  ///   - table: The table its entities are written to.
  ///   - database: The database that holds `table`.
  public convenience init<Entity>(
    keyPath: WritableKeyPath<State, EntityStore<Entity>>,
    table: EntityTable<Entity>,
    database: SQLiteDatabase
  ) {
    self.init(keyPath: keyPath, persist: database.persist(to: table))
  }
}
