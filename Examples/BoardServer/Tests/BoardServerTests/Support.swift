import BoardServerCore
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import Testing

let quiet = Logger(label: "ReduxKit.BoardServer", factory: { _ in SwiftLogNoOpLogHandler() })

/// One instance of the server, in this process: its service and its router.
@MainActor
final class ServerInstance {
  let service: BoardService
  let app: Application<RouterResponder<BasicRequestContext>>

  init(_ database: BoardDatabase, pollInterval: Duration = .seconds(1)) async throws {
    service = try await BoardService.open(database, pollInterval: pollInterval, logger: quiet)
    app = Application(router: makeBoardRouter(service), logger: quiet)
  }
}

/// A response, decoded.
struct Reply<Body: Decodable & Sendable>: Sendable {
  let status: HTTPResponse.Status
  let tag: String?
  let body: Body?
}

extension TestClientProtocol {
  func send<Body: Decodable & Sendable>(
    _ method: HTTPRequest.Method, _ uri: String, json: String? = nil, ifMatch: String? = nil,
    ifNoneMatch: String? = nil, as: Body.Type = Body.self
  ) async throws -> Reply<Body> {
    var headers: HTTPFields = [.contentType: "application/json"]
    if let ifMatch { headers[.ifMatch] = ifMatch }
    if let ifNoneMatch { headers[.ifNoneMatch] = ifNoneMatch }
    let response = try await execute(
      uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    let body = try? decoder.decode(Body.self, from: Data(response.body.readableBytesView))
    return Reply(status: response.status, tag: response.headers[.eTag], body: body)
  }
}

struct Nothing: Decodable, Sendable {}

/// The throwaway server `Scripts/postgres.sh` starts (`REDUXKIT_POSTGRES_URL`).
enum TestServer {
  static let url = ProcessInfo.processInfo.environment["REDUXKIT_POSTGRES_URL"]
  static var isAvailable: Bool { url != nil }
  static let skipReason: Comment =
    "no PostgreSQL: run `eval \"$(Scripts/postgres.sh start)\"` to set REDUXKIT_POSTGRES_URL"

  /// Creates an empty database and returns its URL.
  static func makeDatabase() async throws -> String {
    let name = "board_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    try await admin(try #require(url)) { connection in
      try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: quiet)
    }
    let base = try #require(url)
    let slash = try #require(base.lastIndex(of: "/"))
    return String(base[..<slash]) + "/" + name
  }

  /// Runs `body` on a plain connection to `url`.
  @discardableResult
  static func admin<T>(_ url: String, _ body: (PostgresConnection) async throws -> T)
    async throws -> T
  {
    let components = try #require(URLComponents(string: url))
    let connection = try await PostgresConnection.connect(
      configuration: .init(
        host: components.host ?? "127.0.0.1", port: components.port ?? 5432,
        username: components.user ?? "", password: components.password,
        database: String(components.path.dropFirst()), tls: .disable),
      id: 1, logger: quiet)
    do {
      let result = try await body(connection)
      try await connection.close()
      return result
    } catch {
      try? await connection.close()
      throw error
    }
  }
}

/// A SQLite file of its own in the temporary folder, removed (with its WAL) after `body`.
@MainActor
func withTemporaryDatabase<T>(_ body: (String) async throws -> T) async throws -> T {
  let path = FileManager.default.temporaryDirectory
    .appendingPathComponent("board-server-\(UUID().uuidString).sqlite").path
  defer {
    for suffix in ["", "-wal", "-shm"] {
      try? FileManager.default.removeItem(atPath: path + suffix)
    }
  }
  return try await body(path)
}
