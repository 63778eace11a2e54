public import Persistence
import PostgresNIO

/// Why a PostgreSQL database could not be opened, read or written.
///
/// A flush that fails with one of these stays pending in the middleware and is retried; a
/// ``conflicts(_:)`` failure keeps failing until the app resolves each conflict
/// (``PostgresBackend/resolve(_:keeping:)``): nothing is overwritten silently.
public enum PostgresBackendError: Error, CustomStringConvertible {
  /// The URL is not `postgres://user:password@host:port/database`.
  case invalidURL(String)
  /// No server answered at `host:port` (refused, unreachable, timed out).
  case cannotConnect(host: String, port: Int, underlying: any Error)
  /// The server refused the user name or password.
  case authentication(user: String, message: String)
  /// The database holds migrations this app does not know: it was migrated by a newer app.
  case newerSchema(unknownMigrations: [String])
  /// Two migrations have the same identifier.
  case duplicateMigration(String)
  /// The connection broke while a flush or a read ran; a flush's changes stay pending.
  case connectionLost(underlying: any Error)
  /// Rows another instance changed since this one last read or wrote them: the whole flush was
  /// rolled back.
  case conflicts([PersistenceConflict])
  /// An entity did not encode to JSON.
  case unencodable(table: String, id: String, underlying: any Error)
  /// A stored row no longer decodes as the entity type.
  case undecodable(table: String, id: String, underlying: any Error)
  /// The table was made by a release before typed columns (each entity `jsonb` in a `data`
  /// column): add a migration that calls ``PostgresTable/convertToColumns(on:logger:)``.
  /// Nothing was read or written.
  case jsonTable(table: String)
  /// The table was made by a release whose positions were whole numbers (`bigint`), which
  /// leave no room between two rows: add a migration that calls
  /// ``PostgresTable/addPositions(on:logger:)``. Nothing was read or written.
  case unpositionedTable(table: String)
  /// The entity has a property the table has no column for (a property added since the table
  /// was made): add a migration that calls ``PostgresTable/addColumns(on:defaults:logger:)``.
  /// `declaration` is the column's SQL. Nothing was read or written.
  case missingColumn(table: String, column: String, declaration: String)
  /// A property's type changed since its column was made (`stored` is the column's type,
  /// `expected` the one the property needs): add a migration that converts it (`ALTER TABLE …
  /// ALTER COLUMN … TYPE … USING …`). Nothing was read or written.
  case columnTypeChanged(table: String, column: String, stored: String, expected: String)
  /// The entity's columns cannot be found from its type (see
  /// ``/Persistence/EntitySchemaError``).
  case unsampledProperty(table: String, EntitySchemaError)
  /// The entity has a property named as a column the table keeps for itself (`version`,
  /// `position`, `updated_by`, `updated_at`): rename it with `CodingKeys`.
  case reservedColumn(table: String, column: String)
  /// The database was closed.
  case closed
  /// The server refused a statement (SQLSTATE and message).
  case server(sqlState: String, message: String)
  /// Anything else the driver reported.
  case other(any Error)

  public var description: String {
    switch self {
    case .invalidURL(let url): "not a postgres:// URL: \(url)"
    case .cannotConnect(let host, let port, let underlying):
      "cannot connect to PostgreSQL at \(host):\(port): \(Self.describe(underlying))"
    case .authentication(let user, let message): "PostgreSQL refused user \(user): \(message)"
    case .newerSchema(let unknown):
      "the database was migrated by a newer app (unknown migrations: \(unknown.joined(separator: ", ")))"
    case .duplicateMigration(let identifier): "two migrations are named \(identifier)"
    case .connectionLost(let underlying):
      "the connection to PostgreSQL was lost: \(Self.describe(underlying))"
    case .conflicts(let conflicts):
      "\(conflicts.count) conflict(s): "
        + conflicts.map(\.description).joined(separator: "; ")
    case .unencodable(let table, let id, let underlying):
      "\(table) entity \(id) does not encode: \(underlying)"
    case .undecodable(let table, let id, let underlying):
      "\(table) row \(id) does not decode: \(underlying)"
    case .jsonTable(let table):
      "table \(table) was made by an earlier release, with each entity as jsonb in one column: "
        + "add PostgresMigration(\"…-columns\") { c in try await table.convertToColumns(on: c) }"
    case .unpositionedTable(let table):
      "table \(table) was made by an earlier release, with whole-number positions: add "
        + "PostgresMigration(\"…-positions\") { c in try await table.addPositions(on: c) }"
    case .missingColumn(let table, let column, let declaration):
      "table \(table) has no column \(column) (\(declaration)), which the entity now has: add "
        + "PostgresMigration(\"…-\(column)\") { c in try await table.addColumns(on: c) } (for a "
        + "property that is neither optional nor decoded with a default, give the old rows its "
        + "value: addColumns(on: c, defaults: [\"\(column)\": …]))"
    case .columnTypeChanged(let table, let column, let stored, let expected):
      "table \(table): column \(column) holds \(stored) but the entity now stores \(expected) "
        + "there: add a migration that runs ALTER TABLE \(table) ALTER COLUMN \(column) TYPE "
        + "\(expected) USING (the SQL that converts an old value)"
    case .unsampledProperty(let table, let error): "table \(table): \(error)"
    case .reservedColumn(let table, let column):
      "table \(table): the entity's property '\(column)' has the name of a column the table "
        + "keeps for itself: give it another coding key"
    case .closed: "the database is closed"
    case .server(let sqlState, let message): "PostgreSQL error \(sqlState): \(message)"
    case .other(let error): "\(error)"
    }
  }

  /// NB: a `PSQLError` describes itself with a placeholder (so as not to leak a query's data);
  /// its code and the server's message are what an operator needs, and leak nothing.
  private static func describe(_ error: any Error) -> String {
    guard let error = error as? PSQLError else { return "\(error)" }
    let message = error.serverInfo?[.message].map { ": " + $0 } ?? ""
    let cause = error.underlying.map { " (\($0))" } ?? ""
    return "\(error.code)\(message)\(cause)"
  }

  /// Classifies a driver error.
  init(_ error: any Error, host: String = "", port: Int = 0, user: String = "") {
    if let error = error as? PostgresBackendError {
      self = error
      return
    }
    if let transaction = error as? PostgresTransactionError {
      // NB: the transaction wraps what failed inside it; the cause is what the app needs.
      let cause = transaction.closureError ?? transaction.commitError ?? transaction.beginError
      self =
        cause.map { PostgresBackendError($0, host: host, port: port, user: user) } ?? .other(error)
      return
    }
    guard let error = error as? PSQLError else {
      self = .other(error)
      return
    }
    switch error.code {
    case .connectionError:
      self = .cannotConnect(host: host, port: port, underlying: error.underlying ?? error)
    case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
      self = .connectionLost(underlying: error.underlying ?? error)
    case .poolClosed:
      self = .closed
    case .authMechanismRequiresPassword, .saslError, .unsupportedAuthMechanism:
      self = .authentication(user: user, message: "\(error.code)")
    case .server:
      let state = error.serverInfo?[.sqlState] ?? ""
      let message = error.serverInfo?[.message] ?? ""
      // Class 28: invalid authorization specification (28P01: wrong password). 57P01-03: the
      // server is shutting down or terminated this session (pg_terminate_backend).
      self =
        if state.hasPrefix("28") {
          .authentication(user: user, message: message)
        } else if state.hasPrefix("57P0") {
          .connectionLost(underlying: error)
        } else {
          .server(sqlState: state, message: message)
        }
    default:
      self = .other(error)
    }
  }
}

extension PostgresBackendError {
  /// Whether the server refused a row for good, so that retrying it cannot succeed: a data
  /// exception (class 22: a NUL character in `jsonb`, a value out of range), an integrity
  /// constraint (class 23), a program limit (class 54: a row too large for an index).
  var refusesRows: Bool {
    guard case .server(let state, _) = self else { return false }
    return state.hasPrefix("22") || state.hasPrefix("23") || state.hasPrefix("54")
  }
}

extension PostgresBackendError: PersistenceConflictReporting {
  /// The conflicts of a ``conflicts(_:)`` failure; empty for any other.
  public var conflicts: [PersistenceConflict] {
    if case .conflicts(let conflicts) = self { conflicts } else { [] }
  }
}
