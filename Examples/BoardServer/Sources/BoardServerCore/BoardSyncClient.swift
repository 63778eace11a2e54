public import Foundation
public import PersistenceSync
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// board-server's sync routes (`POST /sync/push`, `GET /sync/pull`) as a `SyncRemote`: what a
/// `SyncReplica` syncs an app's file with, over HTTP (`URLSession`: no package to build).
public final class BoardSyncClient: SyncRemote {
  /// A sync request the server did not answer with its result.
  public struct Failure: Error, Equatable, CustomStringConvertible {
    /// The HTTP status (0: no answer).
    public let status: Int
    public let message: String

    public var description: String { "HTTP \(status): \(message)" }
  }

  private let baseURL: Mutex<URL>
  private let token: String?
  private let session: URLSession

  /// - Parameters:
  ///   - baseURL: The server, as `http://host:port`.
  ///   - token: The token it wants (`Authorization: Bearer`), if it wants one.
  ///   - timeout: The longest a request waits for its answer, in seconds.
  public init(baseURL: URL, token: String? = nil, timeout: TimeInterval = 30) {
    self.baseURL = Mutex(baseURL)
    self.token = token
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeout
    session = URLSession(configuration: configuration)
  }

  /// Sends the next requests to `url`: the server moved (it was started again elsewhere).
  public func move(to url: URL) {
    baseURL.withLock { $0 = url }
  }

  public func push(_ changes: [SyncChange], from replica: String) async throws -> [SyncOutcome] {
    var request = URLRequest(url: baseURL.withLock { $0 }.appendingPathComponent("sync/push"))
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = try JSONEncoder().encode(SyncPush(replica: replica, changes: changes))
    return try await send(request)
  }

  public func pull(after cursor: String?, limit: Int) async throws -> SyncPage {
    var components = URLComponents(
      url: baseURL.withLock { $0 }.appendingPathComponent("sync/pull"),
      resolvingAgainstBaseURL: false)
    components?.queryItems =
      [URLQueryItem(name: "limit", value: "\(limit)")]
      + (cursor.map { [URLQueryItem(name: "after", value: $0)] } ?? [])
    guard let url = components?.url else {
      throw Failure(status: 0, message: "no URL for a pull after \(cursor ?? "the start")")
    }
    return try await send(URLRequest(url: url))
  }

  private func send<Answer: Decodable>(_ request: URLRequest) async throws -> Answer {
    var request = request
    if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    let (data, response) = try await session.data(for: request)
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    guard status == 200 else {
      throw Failure(status: status, message: String(decoding: data.prefix(500), as: UTF8.self))
    }
    return try JSONDecoder().decode(Answer.self, from: data)
  }
}
