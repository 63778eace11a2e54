package import Foundation
package import ReduxKit

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `board-server`'s sync routes (a `SyncRemote`) and its change feed over HTTP, with
/// `URLSession` (FoundationNetworking on Linux: no package to build).
package struct HTTPBoardServer: SyncRemote {
  package let baseURL: URL
  private let session: URLSession
  /// The longest a request waits for an answer; the long poll gets the server's bound on top.
  private let timeout: TimeInterval
  /// The token the server wants, sent as `Authorization: Bearer`.
  private let token: String?
  /// How this client names itself to the server (`X-Board-Client`), which records it with each
  /// change it makes.
  package let clientName: String

  /// - Parameters:
  ///   - baseURL: The server, as `http://host:port`.
  ///   - timeout: The longest a request waits for an answer, in seconds.
  ///   - token: The token the server wants, if it wants one.
  ///   - clientName: How this client names itself: `board user@host` by default (cut to the
  ///     server's 64 bytes).
  package init(
    baseURL: URL, timeout: TimeInterval = 10, token: String? = nil,
    clientName: String =
      "board \(ProcessInfo.processInfo.userName)@\(ProcessInfo.processInfo.hostName)"
  ) {
    self.baseURL = baseURL
    self.timeout = timeout
    self.token = token
    var name = clientName.filter { !$0.isNewline }
    while name.utf8.count > 64 { name.removeLast() }
    self.clientName = name
    let configuration = URLSessionConfiguration.ephemeral
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    session = URLSession(configuration: configuration)
  }

  package func changes(after tag: String?) async throws(BoardServerError) -> String {
    let query =
      tag.map {
        "?after=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
      } ?? ""
    // NB: the server answers within 20 s when nothing changes.
    return try await send("GET", "changes" + query, extraTime: 25, as: BoardTag.self).tag
  }

  // MARK: - Sync

  package func push(_ changes: [SyncChange], from replica: String) async throws -> [SyncOutcome] {
    try await send(
      "POST", "sync/push", body: SyncPush(replica: replica, changes: changes),
      as: [SyncOutcome].self)
  }

  package func pull(after cursor: String?, limit: Int) async throws -> SyncPage {
    let after =
      cursor.map {
        "&after=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
      } ?? ""
    return try await send("GET", "sync/pull?limit=\(limit)" + after, as: SyncPage.self)
  }

  // MARK: - Requests

  private struct SyncPush: Encodable {
    let replica: String
    let changes: [SyncChange]
  }

  private struct BoardTag: Decodable { let tag: String }
  private struct Problem: Decodable {
    let error: Detail?
    struct Detail: Decodable { let message: String? }
  }

  private func send<Reply: Decodable>(
    _ method: String, _ path: String,
    body: (some Encodable)? = nil as Never?,
    extraTime: TimeInterval = 0, as: Reply.Type
  ) async throws(BoardServerError) -> Reply {
    let base =
      baseURL.absoluteString.hasSuffix("/")
      ? String(baseURL.absoluteString.dropLast()) : baseURL.absoluteString
    guard let url = URL(string: base + "/" + path) else {
      throw .refused(status: 0, message: "not a URL: \(base)/\(path)")
    }
    var request = URLRequest(url: url)
    request.httpMethod = method
    request.timeoutInterval = timeout + extraTime
    request.setValue("application/json", forHTTPHeaderField: "Accept")
    if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    request.setValue(clientName, forHTTPHeaderField: "X-Board-Client")
    let data: Data
    let response: URLResponse
    do {
      if let body {
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try Self.encoder.encode(body)
      }
      (data, response) = try await Self.load(request, with: session)
    } catch {
      throw .unreachable((error as NSError).localizedDescription)
    }
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    switch status {
    case 200..<300:
      do {
        return try Self.decoder.decode(Reply.self, from: data)
      } catch {
        throw .server(status: status, message: "an answer the board cannot read: \(error)")
      }
    case 404: throw .gone
    case 400..<500:
      throw .refused(status: status, message: Self.message(in: data))
    default:
      throw .server(status: status, message: Self.message(in: data))
    }
  }

  /// The answer to `request`.
  ///
  /// NB: through a completion handler, not `URLSession.data(for:)`, whose cancellation handler
  /// cancels the request while holding the task's status lock and waits for the session's
  /// queue, where a request that completes at that moment waits for the same lock: a quit
  /// (`TaskManager.shutdown` cancelling a sync in flight) hung for good. A cancelled task's
  /// request runs to its answer or its timeout instead.
  private static func load(_ request: URLRequest, with session: URLSession) async throws -> (
    Data, URLResponse
  ) {
    try await withCheckedThrowingContinuation { continuation in
      session.dataTask(with: request) { data, response, error in
        if let error {
          continuation.resume(throwing: error)
        } else if let response {
          continuation.resume(returning: (data ?? Data(), response))
        } else {
          continuation.resume(throwing: URLError(.badServerResponse))
        }
      }.resume()
    }
  }

  /// The message of Hummingbird's error body, or the body itself.
  private static func message(in data: Data) -> String {
    if let problem = try? decoder.decode(Problem.self, from: data),
      let message = problem.error?.message
    {
      return message
    }
    return String(decoding: data.prefix(200), as: UTF8.self)
  }

  private static let encoder = {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    return encoder
  }()

  private static let decoder = {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
  }()
}
