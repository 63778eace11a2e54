import Foundation
public import Logging
public import PostgresNIO

/// The throwaway PostgreSQL server that `Scripts/postgres.sh start` runs for tests
/// (`REDUXKIT_POSTGRES_URL`): a fresh database per test, and plain connections for what a test
/// checks or breaks behind the library's back (row versions, a lock held, a session killed).
///
/// ```swift
/// @Suite(.enabled(if: PostgresTestServer.isAvailable, Comment(rawValue: PostgresTestServer.skipReason)))
/// struct ShopTests {
///   @Test func anOrderIsSaved() async throws {
///     let url = try await PostgresTestServer.makeDatabase()
///     let backend = try await PostgresBackend(url: url, instance: "a", migrations: shop)
///     …
///   }
/// }
/// ```
public enum PostgresTestServer {
  /// `REDUXKIT_POSTGRES_URL`, which `.ci/run` sets; `nil` when no server runs.
  public static let url = ProcessInfo.processInfo.environment["REDUXKIT_POSTGRES_URL"]

  /// Whether a server is there to test against.
  public static var isAvailable: Bool { url != nil }

  /// Why a suite that needs the server did not run, and how to start it.
  public static let skipReason =
    "no PostgreSQL: run `eval \"$(Scripts/postgres.sh start)\"` to set REDUXKIT_POSTGRES_URL"

  /// Creates an empty database and returns its URL.
  ///
  /// - Parameters:
  ///   - prefix: The start of the database's name, the rest a UUID.
  ///   - logger: Receives the connection's messages; none by default.
  /// - Throws: ``PostgresTestServerError`` without a server, or the server's error.
  public static func makeDatabase(
    prefix: String = "test",
    logger: Logger = Logger(
      label: "ReduxKit.PersistencePostgres", factory: { _ in SwiftLogNoOpLogHandler() })
  ) async throws -> String {
    let name = prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    let base = try serverURL()
    try await admin(logger: logger) { connection in
      try await connection.query(
        PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
    }
    guard let slash = base.lastIndex(of: "/") else { throw PostgresTestServerError.badURL(base) }
    return String(base[..<slash]) + "/" + name
  }

  /// Runs `body` on a plain connection to `target` (the server's default database if `nil`),
  /// closed afterwards.
  ///
  /// - Parameters:
  ///   - target: A database's URL, from ``makeDatabase(prefix:logger:)``.
  ///   - logger: Receives the connection's messages; none by default.
  ///   - body: What to do on the connection.
  /// - Returns: What `body` returns.
  /// - Throws: ``PostgresTestServerError`` without a server or with a URL it cannot read, or
  ///   what connecting or `body` throws.
  @discardableResult
  public static func admin<T>(
    _ target: String? = nil,
    logger: Logger = Logger(
      label: "ReduxKit.PersistencePostgres", factory: { _ in SwiftLogNoOpLogHandler() }),
    _ body: (PostgresConnection) async throws -> T
  ) async throws -> T {
    let address = try target ?? serverURL()
    guard let components = URLComponents(string: address) else {
      throw PostgresTestServerError.badURL(address)
    }
    let connection = try await PostgresConnection.connect(
      configuration: .init(
        host: components.host ?? "127.0.0.1", port: components.port ?? 5432,
        username: components.user ?? "", password: components.password,
        database: String(components.path.dropFirst()), tls: .disable),
      id: 1, logger: logger)
    do {
      let result = try await body(connection)
      try await connection.close()
      return result
    } catch {
      do {
        try await connection.close()
      } catch let closing {
        // NB: the body's error is the one to report; the close's goes to the log.
        logger.debug("closing the admin connection failed", metadata: ["error": "\(closing)"])
      }
      throw error
    }
  }

  private static func serverURL() throws -> String {
    guard let url else { throw PostgresTestServerError.noServer }
    return url
  }
}

/// Why ``PostgresTestServer`` could not reach the server.
public enum PostgresTestServerError: Error, CustomStringConvertible {
  /// `REDUXKIT_POSTGRES_URL` is not set.
  case noServer
  /// A URL that is not `postgres://user@host:port/database`.
  case badURL(String)

  public var description: String {
    switch self {
    case .noServer: PostgresTestServer.skipReason
    case .badURL(let url): "not a PostgreSQL URL: \(url)"
    }
  }
}
