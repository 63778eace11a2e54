public import GRDB

/// One step of an app's schema, applied once, in the order the steps are listed.
///
/// The migrations of ``SQLiteDatabase/init(path:migrations:configuration:verifiesIntegrity:busyTimeout:creation:instance:changeLogRetention:)``
/// need no `import GRDB` and no GRDB dependency in the app's manifest:
///
/// ```swift
/// let notes = EntityTable<Note>("notes")
/// let database = try SQLiteDatabase(path: path, migrations: [
///   SQLiteMigration("v1") { db in try notes.create(in: db) },
/// ])
/// ```
///
/// Its identifier is recorded in the file: never rename or remove a step an app has shipped;
/// add a new one. (It is GRDB's `DatabaseMigrator` underneath; pass one to `migrator:` for
/// GRDB's other options.)
public struct SQLiteMigration: Sendable {
  /// The name the file records once the step has run.
  public let identifier: String
  let migrate: @Sendable (Database) throws -> Void

  /// Creates a step.
  ///
  /// - Parameters:
  ///   - identifier: The step's name, unique among the app's steps.
  ///   - migrate: Changes the schema (creates ``EntityTable``s, adds columns); it runs in the
  ///     migration's transaction.
  public init(_ identifier: String, migrate: @escaping @Sendable (Database) throws -> Void) {
    self.identifier = identifier
    self.migrate = migrate
  }

  /// The GRDB migrator that applies `migrations` in order.
  ///
  /// - Throws: ``SQLiteDatabaseError/duplicateMigration(_:)`` when two steps share an
  ///   identifier (GRDB would trap).
  static func migrator(_ migrations: [SQLiteMigration]) throws(SQLiteDatabaseError)
    -> DatabaseMigrator
  {
    var migrator = DatabaseMigrator()
    var seen = Set<String>()
    for migration in migrations {
      guard seen.insert(migration.identifier).inserted else {
        throw .duplicateMigration(migration.identifier)
      }
      migrator.registerMigration(migration.identifier, migrate: migration.migrate)
    }
    return migrator
  }
}
