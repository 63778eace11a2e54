package import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// ``BoardServerAPI`` over HTTP, with `URLSession` (FoundationNetworking on Linux: no package
/// to build).
package struct HTTPBoardServer: BoardServerAPI {
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

  package func board() async throws(BoardServerError) -> ServerBoard {
    // NB: the cards first: a column is deleted only once empty, so the columns read after
    // them hold every card's column.
    let cards = try await send("GET", "cards", as: [ServerCard].self)
    let columns = try await send("GET", "columns", as: [ServerColumn].self)
    return ServerBoard(columns: columns, cards: cards)
  }

  package func changes(after tag: String?) async throws(BoardServerError) -> String {
    let query =
      tag.map {
        "?after=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
      } ?? ""
    // NB: the server answers within 20 s when nothing changes.
    return try await send("GET", "changes" + query, extraTime: 25, as: BoardTag.self).tag
  }

  package func createColumn(id: String, name: String) async throws(BoardServerError)
    -> ServerColumn
  {
    try await send("POST", "columns", body: NewColumn(id: id, name: name), as: ServerColumn.self)
  }

  package func renameColumn(id: String, tag: String, name: String) async throws(BoardServerError)
    -> ServerColumn
  {
    try await send(
      "PUT", "columns/\(id)", ifMatch: tag, body: ColumnName(name: name), as: ServerColumn.self)
  }

  package func deleteColumn(id: String, tag: String) async throws(BoardServerError) {
    _ = try await send("DELETE", "columns/\(id)", ifMatch: tag, as: Nothing.self)
  }

  package func createCard(_ card: ServerCard) async throws(BoardServerError) -> ServerCard {
    let new = NewCard(
      id: card.id, columnID: card.columnID, title: card.title, notes: card.notes,
      tags: card.tags, due: card.due)
    return try await send("POST", "cards", body: new, as: ServerCard.self)
  }

  package func updateCard(id: String, tag: String, _ change: ServerCardChange)
    async throws(BoardServerError) -> ServerCard
  {
    try await send("PUT", "cards/\(id)", ifMatch: tag, body: change, as: ServerCard.self)
  }

  package func deleteCard(id: String, tag: String) async throws(BoardServerError) {
    _ = try await send("DELETE", "cards/\(id)", ifMatch: tag, as: Nothing.self)
  }

  // MARK: - Requests

  private struct BoardTag: Decodable { let tag: String }
  private struct Nothing: Decodable {}
  private struct ColumnName: Encodable { let name: String }
  private struct NewColumn: Encodable {
    let id: String
    let name: String
  }
  private struct NewCard: Encodable {
    let id: String
    let columnID: String
    let title: String
    let notes: String
    let tags: [String]
    let due: Date?
  }
  private struct Problem: Decodable {
    let error: Detail?
    struct Detail: Decodable { let message: String? }
  }

  private func send<Reply: Decodable>(
    _ method: String, _ path: String, ifMatch: String? = nil,
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
    if let ifMatch { request.setValue(ifMatch, forHTTPHeaderField: "If-Match") }
    let data: Data
    let response: URLResponse
    do {
      if let body {
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try Self.encoder.encode(body)
      }
      (data, response) = try await session.data(for: request)
    } catch {
      throw .unreachable((error as NSError).localizedDescription)
    }
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    switch status {
    case 200..<300:
      if data.isEmpty, let nothing = Nothing() as? Reply { return nothing }
      do {
        return try Self.decoder.decode(Reply.self, from: data)
      } catch {
        throw .server(status: status, message: "an answer the board cannot read: \(error)")
      }
    case 412: throw .changedElsewhere
    case 404: throw .gone
    case 400..<500:
      throw .refused(status: status, message: Self.message(in: data))
    default:
      throw .server(status: status, message: Self.message(in: data))
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
