public import GRDB

/// Why a ``SQLiteDatabase`` could not open, read or write. Nothing already committed to the
/// database is lost by any of these: the failed write is rolled back, and the changes it carried
/// stay pending in the ``/Persistence/PersistenceMiddleware``.
public enum SQLiteDatabaseError: Error, Sendable {
  /// The file exists but is not a SQLite database.
  case notADatabase(path: String)
  /// The database is damaged: `detail` is what SQLite's integrity check or the failing read said.
  case corrupt(path: String, detail: String)
  /// The database was migrated by a newer version of the app: it holds migrations this app
  /// does not know, so it is left untouched.
  case newerSchema(path: String, unknownMigrations: [String])
  /// The disk (or the database's `max_page_count`) is full.
  case diskFull
  /// The database, or its directory, cannot be written.
  case readOnly
  /// The file cannot be opened or created.
  case cannotOpen(path: String)
  /// A stored entity no longer decodes as its type.
  case undecodable(table: String, id: String, underlying: any Error)
  /// An entity does not encode (a non-finite number, a failing custom `encode(to:)`).
  case unencodable(table: String, id: String, underlying: any Error)
  /// The task was cancelled before the database answered.
  case cancelled
  /// Any other SQLite failure.
  case sqlite(DatabaseError)
}

extension SQLiteDatabaseError {
  /// Classifies an error thrown by GRDB; errors already classified pass through.
  init(_ error: any Error, path: String) {
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
      default: self = .sqlite(error)
      }
    default:
      // GRDB throws only DatabaseError and CancellationError; anything else is ours and typed.
      self = .sqlite(DatabaseError(resultCode: .SQLITE_ERROR, message: "\(error)"))
    }
  }
}

extension SQLiteDatabaseError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .notADatabase(let path): "\(path) is not a SQLite database"
    case .corrupt(let path, let detail): "\(path) is corrupt: \(detail)"
    case .newerSchema(let path, let unknown):
      "\(path) was migrated by a newer app (unknown migrations: \(unknown.joined(separator: ", ")))"
    case .diskFull: "the disk is full"
    case .readOnly: "the database is read-only"
    case .cannotOpen(let path): "cannot open \(path)"
    case .undecodable(let table, let id, let underlying):
      "\(table) row \(id) does not decode: \(underlying)"
    case .unencodable(let table, let id, let underlying):
      "\(table) entity \(id) does not encode: \(underlying)"
    case .cancelled: "cancelled"
    case .sqlite(let error): "\(error)"
    }
  }
}
