public import GRDB
public import Persistence

import struct Foundation.FileAttributeKey
import class Foundation.FileManager
import class Foundation.NSNumber
import struct Foundation.URL

/// Why a ``SQLiteDatabase`` could not open, read or write. Nothing already committed to the
/// database is lost by any of these: the failed write is rolled back, and the changes it carried
/// stay pending in the `PersistenceMiddleware`. A file refused at open is left
/// byte for byte as it was.
public enum SQLiteDatabaseError: Error, Sendable {
  /// The file exists but is not a SQLite database.
  case notADatabase(path: String)
  /// The database is damaged: `detail` is what SQLite's integrity check or the failing read said.
  case corrupt(path: String, detail: String)
  /// The database was migrated by a newer version of the app: it holds migrations this app
  /// does not know, so it is left untouched.
  case newerSchema(path: String, unknownMigrations: [String])
  /// The file exists and is empty: usually a database truncated by a failing disk or a copy.
  /// It is refused, untouched, unless the app opened it with
  /// ``SQLiteDatabase/Creation/ifMissingOrEmpty``.
  case emptyFile(path: String)
  /// Another connection (another process, most often) held a lock on the database for longer
  /// than the busy timeout.
  case busy(path: String)
  /// The disk (or the database's `max_page_count`) is full.
  case diskFull
  /// The database, or its directory, cannot be written.
  case readOnly
  /// The file cannot be opened or created.
  case cannotOpen(path: String)
  /// The database was closed with ``SQLiteDatabase/close()``.
  case closed(path: String)
  /// A stored entity no longer decodes as its type.
  case undecodable(table: String, id: String, underlying: any Error)
  /// An entity does not encode (a non-finite number, a failing custom `encode(to:)`).
  case unencodable(table: String, id: String, underlying: any Error)
  /// The task was cancelled before the database answered.
  case cancelled
  /// Two ``SQLiteMigration``s share this identifier; nothing was opened.
  case duplicateMigration(String)
  /// Rows another process changed, deleted or created since this one last read or wrote
  /// them: the whole flush was rolled back, and fails again until each conflict is resolved
  /// (``SQLiteDatabase/resolve(_:keeping:)``, ``SQLiteDatabase/keepTheirs(_:in:)``).
  case conflicts([PersistenceConflict])
  /// The table was made by a release before row versions: add a migration that calls
  /// ``EntityTable/addVersions(in:)`` for it. Nothing was read or written.
  case unversionedTable(table: String)
  /// The table was made by a release that kept rows in insertion order (the rowid), without a
  /// `position`: add a migration that calls ``EntityTable/addPositions(in:)`` for it. Nothing
  /// was read or written.
  case unpositionedTable(table: String)
  /// The table was made by a release before typed columns (each entity one JSON `data`
  /// value): add a migration that calls ``EntityTable/convertToColumns(in:)`` for it. Nothing
  /// was read or written.
  case jsonTable(table: String)
  /// The entity has a property the table has no column for (a property added since the table
  /// was made): add a migration that calls ``EntityTable/addColumns(in:defaults:)``.
  /// `declaration` is the column's SQL. Nothing was read or written.
  case missingColumn(table: String, column: String, declaration: String)
  /// A property's type changed since its column was made (`stored` is the column's SQL type,
  /// `expected` the one the property needs): add a migration that converts the column's values
  /// with ``EntityTable/rebuild(in:values:)``. Nothing was read or written.
  case columnTypeChanged(table: String, column: String, stored: String, expected: String)
  /// The entity's columns cannot be found from its type (see
  /// ``/Persistence/EntitySchemaError``).
  case unsampledProperty(table: String, EntitySchemaError)
  /// The entity has a property named as a column the table keeps for itself (`version`):
  /// rename it with `CodingKeys`.
  case reservedColumn(table: String, column: String)
  /// Any other SQLite failure.
  case sqlite(DatabaseError)
}

extension SQLiteDatabaseError: PersistenceConflictReporting {
  /// The conflicts of a ``conflicts(_:)`` failure; empty for any other.
  public var conflicts: [PersistenceConflict] {
    if case .conflicts(let conflicts) = self { conflicts } else { [] }
  }
}

extension SQLiteDatabaseError {
  /// Classifies an error thrown by GRDB; errors already classified pass through.
  package init(_ error: any Error, path: String) {
    switch error {
    case let error as SQLiteDatabaseError:
      self = error
    case is CancellationError:
      self = .cancelled
    case let error as DatabaseError:
      switch error.resultCode {
      case .SQLITE_NOTADB: self = .notADatabase(path: path)
      case .SQLITE_CORRUPT: self = .corrupt(path: path, detail: error.message ?? "\(error)")
      case .SQLITE_FULL: self = .diskFull
      case .SQLITE_READONLY: self = .readOnly
      case .SQLITE_CANTOPEN: self = .cannotOpen(path: path)
      case .SQLITE_BUSY, .SQLITE_LOCKED: self = .busy(path: path)
      case .SQLITE_IOERR where Self.isDiskFull(error, path: path): self = .diskFull
      default: self = .sqlite(error)
      }
    case let error as RowDecodingError:
      // NB: a stored value of another type than the one written there (the library's own
      // columns: a migration's identifier, a row's version): the file is damaged, or another
      // tool wrote it.
      self = .corrupt(path: path, detail: "\(error)")
    default:
      // GRDB throws DatabaseError, RowDecodingError and CancellationError; anything else is
      // ours and typed.
      self = .sqlite(DatabaseError(resultCode: .SQLITE_ERROR, message: "\(error)"))
    }
  }

  /// Whether a "disk I/O error" is a full disk. SQLite reports a failed write to the database
  /// or its log as `SQLITE_FULL`, but a failed growth of the `-shm` index (the first thing an
  /// open of a WAL database writes) as `SQLITE_IOERR_SHMSIZE`; for any other I/O error, the
  /// volume's free space decides.
  private static func isDiskFull(_ error: DatabaseError, path: String) -> Bool {
    if error.extendedResultCode == .SQLITE_IOERR_SHMSIZE { return true }
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    let attributes: [FileAttributeKey: Any]
    do {
      attributes = try FileManager.default.attributesOfFileSystem(forPath: directory)
    } catch {
      // NB: free space unknown: the failure stays the I/O error SQLite reported.
      return false
    }
    guard let free = attributes[FileAttributeKey.systemFreeSize] as? NSNumber else { return false }
    return free.int64Value < 64 * 1_024
  }
}

extension SQLiteDatabaseError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .notADatabase(let path): "\(path) is not a SQLite database"
    case .corrupt(let path, let detail): "\(path) is corrupt: \(detail)"
    case .newerSchema(let path, let unknown):
      "\(path) was migrated by a newer app (unknown migrations: \(unknown.joined(separator: ", ")))"
    case .emptyFile(let path):
      "\(path) is an empty file, not a database (truncated?): refused, left untouched"
    case .busy(let path): "\(path) is locked by another connection (busy timeout exceeded)"
    case .diskFull: "the disk is full"
    case .readOnly: "the database is read-only"
    case .cannotOpen(let path): "cannot open \(path)"
    case .closed(let path): "\(path) was closed"
    case .undecodable(let table, let id, let underlying):
      "\(table) row \(id) does not decode: \(underlying)"
    case .unencodable(let table, let id, let underlying):
      "\(table) entity \(id) does not encode: \(underlying)"
    case .cancelled: "cancelled"
    case .duplicateMigration(let identifier):
      "two migrations are named '\(identifier)': each needs its own identifier"
    case .conflicts(let conflicts):
      "\(conflicts.count) conflict(s) with another process: "
        + conflicts.map(\.description).joined(separator: "; ")
    case .unversionedTable(let table):
      "table \(table) was made by an earlier release, without row versions: add "
        + "SQLiteMigration(\"…-versions\") { db in try table.addVersions(in: db) } to the migrations"
    case .unpositionedTable(let table):
      "table \(table) was made by an earlier release, without row positions: add "
        + "SQLiteMigration(\"…-positions\") { db in try table.addPositions(in: db) } to the "
        + "migrations"
    case .jsonTable(let table):
      "table \(table) was made by an earlier release, with each entity as JSON in one column: add "
        + "SQLiteMigration(\"…-columns\") { db in try table.convertToColumns(in: db) } to the "
        + "migrations"
    case .missingColumn(let table, let column, let declaration):
      "table \(table) has no column \(column) (\(declaration)), which the entity now has: add "
        + "SQLiteMigration(\"…-\(column)\") { db in try table.addColumns(in: db) } to the migrations "
        + "(for a property that is neither optional nor decoded with a default, give the old rows "
        + "its value: addColumns(in: db, defaults: [\"\(column)\": …]))"
    case .columnTypeChanged(let table, let column, let stored, let expected):
      "table \(table): column \(column) holds \(stored) but the entity now stores \(expected) there: "
        + "add SQLiteMigration(\"…-\(column)\") { db in try table.rebuild(in: db, values: "
        + "[\"\(column)\": \"CAST(\(column) AS \(expected))\"]) } to the migrations, with the SQL "
        + "that converts an old value"
    case .unsampledProperty(let table, let error): "table \(table): \(error)"
    case .reservedColumn(let table, let column):
      "table \(table): the entity's property '\(column)' has the name of one of the table's own "
        + "columns (version, position): give it another coding key"
    case .sqlite(let error): "\(error)"
    }
  }
}
