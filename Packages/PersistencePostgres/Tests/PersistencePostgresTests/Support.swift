import EntityTracking
import Foundation
import Logging
import PersistencePostgres
import PersistencePostgresTesting
import PostgresNIO
import Testing

/// The server's helpers (PersistencePostgresTesting), and what only these tests do with it.
typealias TestServer = PostgresTestServer

extension PostgresTestServer {
  static let quiet = Logger(label: "tests", factory: { _ in SwiftLogNoOpLogHandler() })

  /// The version of every row of `table`, by id.
  static func rowVersions(_ url: String, table: String) async throws -> [String: Int64] {
    try await admin(url) { connection in
      let rows = try await connection.query(
        PostgresQuery(unsafeSQL: "SELECT id, version FROM \(table)"), logger: quiet)
      var versions: [String: Int64] = [:]
      for try await (id, version) in rows.decode((String, Int64).self) { versions[id] = version }
      return versions
    }
  }

  /// Terminates the sessions named `applicationName` on `url`'s database; returns how many.
  static func terminate(_ url: String, applicationName: String) async throws -> Int {
    try await admin(url) { connection in
      try await count(
        connection.query(
          """
          SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = \(applicationName)
          """, logger: quiet))
    }
  }

  /// Waits (up to 30 s) for a session of `url`'s database to wait for a lock, then terminates
  /// it; returns how many it terminated.
  static func terminateWhenWaitingForLock(_ url: String) async throws -> Int {
    try await admin(url) { connection in
      for _ in 0..<3000 {
        let killed = try await count(
          connection.query(
            """
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'
            """, logger: quiet))
        if killed > 0 { return killed }
        try await Task.sleep(for: .milliseconds(10))
      }
      return 0
    }
  }

  private static func count(_ rows: PostgresRowSequence) async throws -> Int {
    var count = 0
    for try await _ in rows { count += 1 }
    return count
  }
}

struct Card: Codable, Identifiable, Equatable, Sendable {
  let id: Int
  var title: String
  var score: Double = 0
}

struct Column: Codable, Identifiable, Equatable, Sendable {
  let id: String
  var name: String
}

struct Board {
  var columns = EntityStore<Column>()
  var cards = EntityStore<Card>()
}

let cardTable = PostgresTable<Card>("cards")
let columnTable = PostgresTable<Column>("columns")
let boardMigrations = [
  PostgresMigration("v1") { connection in
    try await columnTable.create(on: connection)
    try await cardTable.create(on: connection)
  }
]

/// Opens `url` as the instance `name`, with the board's schema.
func openBoard(_ url: String, as name: String) async throws -> PostgresBackend {
  try await PostgresBackend(url: url, instance: name, migrations: boardMigrations)
}
