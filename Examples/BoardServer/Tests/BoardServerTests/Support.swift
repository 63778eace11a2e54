import BoardServerCore
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import PersistencePostgresTesting
import PostgresNIO
import Testing

let quiet = Logger(label: "ReduxKit.BoardServer", factory: { _ in SwiftLogNoOpLogHandler() })

/// One instance of the server, in this process: its service and its router.
@MainActor
final class ServerInstance {
  let service: BoardService
  let app: Application<RouterResponder<BasicRequestContext>>

  init(_ database: BoardDatabase, pollInterval: Duration = .seconds(1), token: String? = nil)
    async throws
  {
    service = try await BoardService.open(database, pollInterval: pollInterval, logger: quiet)
    app = Application(router: makeBoardRouter(service, token: token), logger: quiet)
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

/// The server `Scripts/postgres.sh` starts, and a database of its own per test.
typealias TestServer = PostgresTestServer

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

/// Waits until `condition` holds, checking it again whenever one of `services` changes its
/// board (a long poll on each board's tag, as a client would wait, not a timer); records an
/// issue after 30 s, the bound on convergence.
@MainActor
func waitUntil(_ what: Comment, watching services: [BoardService], _ condition: () -> Bool) async {
  let deadline = ContinuousClock.now.advanced(by: .seconds(30))
  while ContinuousClock.now < deadline {
    // NB: the tags are read before the check, so a change after it ends the wait at once.
    let tags = services.map(\.boardTag)
    if condition() { return }
    await nextChange(of: services, after: tags)
  }
  Issue.record("not within 30 s: \(what)")
}

/// Returns when one of `services` holds a board other than its tag in `tags` (or after a
/// second, so that the caller's deadline is checked).
@MainActor
private func nextChange(of services: [BoardService], after tags: [String]) async {
  await withTaskGroup { group in
    for (service, tag) in zip(services, tags) {
      group.addTask { _ = await service.changes(after: tag, timeout: .seconds(1)) }
    }
    await group.next()
    group.cancelAll()
  }
}
