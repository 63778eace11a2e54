public import DevTools
public import Foundation
public import Hummingbird
public import Logging
import Synchronization

/// A local web page over a recording: the action timeline (filtered and searched as you type),
/// the state after each action and what it changed, its timing, and the time travel controls
/// (jump, step, skip, resume) on the live store, with live updates (server-sent events). The page
/// is one file of the package's resources: no JavaScript build step, nothing from a CDN.
///
/// ```swift
/// let server = try DevToolsServer(timeline: recorder, travel: travel)
/// Task { try await server.run { url in print("DevTools: \(url)") } }
/// ```
///
/// ## Who can reach it
/// It listens on the loopback interface unless told otherwise, and every request needs its
/// token, on loopback too: a random one unless given (any other address requires one given).
/// The address ``run(onStarted:)`` prints carries it (`?token=`); the page, opened there, keeps
/// it in a cookie (`HttpOnly`, `SameSite=Strict`) and sends it with each request; a script
/// sends `Authorization: Bearer <token>`. Besides the token:
///
/// - a request must be addressed to the bound host (`Host`), so that a page whose own name a
///   DNS-rebinding attack points at `127.0.0.1` is refused (421);
/// - a browser's request must come from the page itself (`Sec-Fetch-Site`), and a command
///   (`POST`: jump, step, skip, resume, import) must name the page's own origin (`Origin`): a
///   page on another origin, even one on another port of `127.0.0.1` that has learned the
///   token, can neither read the records nor drive the app (403);
/// - no page may show it in a frame (`X-Frame-Options: DENY`, `frame-ancestors 'none'`), and
///   the page's address, which holds the token, is sent to no other site (`no-referrer`).
///
/// The token is compared in constant time. What the token guards is the whole recording (every
/// state the app went through) and the live app's time travel: give it to no one you would not
/// give the app's data.
public struct DevToolsServer: Sendable {
  /// Where it listens, and who may ask.
  public struct Configuration: Sendable {
    /// The address to bind: `127.0.0.1` by default.
    public var host: String
    /// The port; 0 takes a free one (``DevToolsServer/run(onStarted:)`` says which).
    public var port: Int
    /// The token every request must carry; `nil`: a random one (only on loopback: any other
    /// address requires one given).
    public var token: String?

    /// Loopback on a free port, with a random token, unless told otherwise.
    public init(host: String = "127.0.0.1", port: Int = 0, token: String? = nil) {
      self.host = host
      self.port = port
      self.token = token
    }

    /// Whether ``host`` is the loopback interface, where no token is required.
    public var isLoopback: Bool { ["127.0.0.1", "::1", "localhost"].contains(host) }
  }

  /// Where it listens, and who may ask.
  public let configuration: Configuration
  /// The token every request carries: the configuration's, or a random one.
  public let token: String
  private let timeline: any DevToolsTimeline
  private let travel: (any DevToolsTravelControl)?
  private let imported = ImportedSessions()
  private let logger: Logger

  /// - Parameters:
  ///   - timeline: The recording to show (a `DevToolsRecorder`).
  ///   - travel: The live store's time travel, for the controls; `nil` shows the controls off.
  ///   - configuration: The address and the token.
  ///   - logger: Receives the server's messages.
  /// - Throws: ``DevToolsServerError/tokenRequired(host:)`` for an address other than loopback
  ///   without a token.
  public init(
    timeline: any DevToolsTimeline, travel: (any DevToolsTravelControl)? = nil,
    configuration: Configuration = Configuration(),
    logger: Logger = Logger(label: "ReduxKit.DevTools.Server")
  ) throws(DevToolsServerError) {
    guard configuration.isLoopback || !(configuration.token ?? "").isEmpty else {
      throw .tokenRequired(host: configuration.host)
    }
    self.timeline = timeline
    self.travel = travel
    self.configuration = configuration
    token = configuration.token ?? Self.randomToken()
    self.logger = logger
  }

  /// 128 random bits, in hexadecimal.
  private static func randomToken() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<2).map { _ in
      let text = String(generator.next() as UInt64, radix: 16)
      return String(repeating: "0", count: 16 - text.count) + text
    }.joined()
  }

  /// Serves until the task is cancelled.
  ///
  /// - Parameter onStarted: Receives the page's address (with its token) once it listens.
  public func run(onStarted: @escaping @Sendable (URL) async -> Void = { _ in }) async throws {
    let configuration = configuration
    let token = token
    let app = Application(
      router: router(),
      configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
      onServerRunning: { channel in
        let port = channel.localAddress?.port ?? configuration.port
        if let url = URL(string: "http://\(configuration.host):\(port)/?token=\(token)") {
          await onStarted(url)
        }
      },
      logger: logger)
    try await app.runService(gracefulShutdownSignals: [])
  }

  /// The routes, for a test to drive without a network.
  public func router() -> Router<BasicRequestContext> {
    let router = Router()
    router.add(middleware: AccessCheck(token: token, boundTo: configuration.host))
    let timeline = timeline
    let travel = travel
    router.get("/") { request, _ in
      try ResponseCompression.response(
        ByteBuffer(bytes: Self.page), to: request,
        headers: [.contentType: "text/html; charset=utf-8"])
    }
    // NB: `imported=ID` in a read: the session that page imported (each page its own), not the
    // live app's recording.
    router.get("api/records") { request, _ in
      let after = try Self.number(request, "after", default: -1)
      let limit = min(max(try Self.number(request, "limit", default: Self.pageSize), 1), 10_000)
      let (app, records, state): (String, [DevToolsRecord], TravelState)
      if let session = try imported.session(for: request) {
        (app, records, state) = (
          session.header.app, session.summaries(after: after, limit: limit + 1),
          await TravelState(nil)
        )
      } else {
        (app, records, state) = (
          timeline.app, timeline.summaries(after: after, limit: limit + 1),
          await TravelState(travel)
        )
      }
      return try Self.json(
        request,
        TimelinePage(
          app: app, records: Array(records.prefix(limit)), more: records.count > limit,
          travel: state, imported: nil))
    }
    router.get("api/record") { request, _ in
      let index = try Self.index(request, "index")
      let record =
        if let session = try imported.session(for: request) {
          session.record(at: index)
        } else {
          timeline.record(at: index)
        }
      guard let record else { throw HTTPError(.notFound, message: "#\(index) is not kept") }
      return try Self.json(request, record)
    }
    router.get("api/diff") { request, _ in
      let index = try Self.index(request, "index")
      let diff =
        if let session = try imported.session(for: request) {
          session.diff(at: index)
        } else {
          timeline.diff(at: index)
        }
      guard let diff else {
        throw HTTPError(.notFound, message: "no state kept for #\(index) or before it")
      }
      return try Self.json(request, diff.changes)
    }
    router.post("api/import") { request, _ in
      let body: ByteBuffer
      do {
        body = try await request.body.collect(upTo: Self.importLimit)
      } catch {
        throw HTTPError(
          .contentTooLarge,
          message: "a session to import holds at most \(Self.importLimit >> 20) MB")
      }
      let name = request.uri.queryParameters.get("name") ?? "the imported file"
      let session: DevToolsSession
      do {
        session = try DevToolsSession(data: Data(body.readableBytesView), path: name)
      } catch {
        // NB: the line number and what is wrong with it, for the page to show.
        throw HTTPError(.badRequest, message: "\(name): \(error)")
      }
      let id = imported.add(session)
      let records = session.summaries(after: -1, limit: Self.pageSize + 1)
      return try Self.json(
        request,
        TimelinePage(
          app: session.header.app, records: Array(records.prefix(Self.pageSize)),
          more: records.count > Self.pageSize, travel: await TravelState(nil), imported: id))
    }
    router.get("api/export") { request, _ in
      var lines = try JSONEncoder().encode(DevToolsSessionHeader(app: timeline.app))
      lines.append(0x0A)
      // NB: record 0 too: the state a replay of the file starts from.
      for record in timeline.records() {
        lines.append(try JSONEncoder().encode(record))
        lines.append(0x0A)
      }
      return try ResponseCompression.response(
        ByteBuffer(bytes: lines), to: request,
        headers: [
          .contentType: "application/x-ndjson",
          .contentDisposition: "attachment; filename=\"\(timeline.app).jsonl\"",
        ])
    }
    router.get("api/events") { _, _ in
      Response(
        status: .ok,
        headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
        body: ResponseBody { writer in
          let (batches, continuation) = AsyncStream.makeStream(of: [DevToolsRecord].self)
          // NB: rows, not states (a recorder sends them so; another timeline may not).
          let token = timeline.addListener { batch in
            continuation.yield(batch.map { $0.state == nil ? $0 : $0.withoutState() })
          }
          defer { timeline.removeListener(token) }
          // NB: a comment first, so that the page knows the stream is open.
          try await writer.write(ByteBuffer(string: ": open\n\n"))
          for await batch in batches {
            let data = try JSONEncoder().encode(batch)
            try await writer.write(
              ByteBuffer(
                string: "event: records\ndata: \(String(decoding: data, as: UTF8.self))\n\n"))
          }
          try await writer.finish(nil)
        })
    }
    router.post("api/jump") { request, _ in
      let index = try Self.index(request, "index")
      return try await Self.control(travel, request) { try $0.jump(to: index) }
    }
    router.post("api/step") { request, _ in
      let offset = try Self.index(request, "by")
      return try await Self.control(travel, request) { try $0.step(by: offset) }
    }
    router.post("api/skip") { request, _ in
      let index = try Self.index(request, "index")
      guard let travel else { throw HTTPError(.conflict, message: "no time travel here") }
      do {
        try await travel.skip(index)
      } catch {
        throw HTTPError(.conflict, message: "\(error)")
      }
      return try Self.json(request, await TravelState(travel))
    }
    router.post("api/resume") { request, _ in
      try await Self.control(travel, request) { $0.resume() }
    }
    return router
  }

  // MARK: - Helpers

  /// What the page shows of the time travel.
  struct TravelState: Encodable {
    let available: Bool
    let position: Int?
    let skipped: [Int]

    @MainActor
    init(_ travel: (any DevToolsTravelControl)?) {
      available = travel != nil
      position = travel?.position
      skipped = travel.map { $0.skipped.sorted() } ?? []
    }
  }

  /// A page of the timeline: rows without states, and whether more follow.
  struct TimelinePage: Encodable {
    let app: String
    let records: [DevToolsRecord]
    let more: Bool
    let travel: TravelState
    /// The id of the session just imported, for the page's later reads of it.
    let imported: Int?
  }

  /// Runs a travel command on the main actor; its refusal is a 409 with the reason.
  private static func control(
    _ travel: (any DevToolsTravelControl)?, _ request: Request,
    _ command: @escaping @MainActor (any DevToolsTravelControl) throws -> Void
  ) async throws -> Response {
    guard let travel else { throw HTTPError(.conflict, message: "no time travel here") }
    let state = try await MainActor.run { () throws -> TravelState in
      do {
        try command(travel)
      } catch {
        throw HTTPError(.conflict, message: "\(error)")
      }
      return TravelState(travel)
    }
    return try json(request, state)
  }

  /// How many rows a page of the timeline holds unless the request says.
  static let pageSize = 2_000

  private static func number(_ request: Request, _ name: String, default value: Int) throws -> Int {
    request.uri.queryParameters.get(name) == nil ? value : try index(request, name)
  }

  private static func index(_ request: Request, _ name: String) throws -> Int {
    guard let value = request.uri.queryParameters.get(name), let index = Int(value) else {
      throw HTTPError(.badRequest, message: "give ?\(name)= a whole number")
    }
    return index
  }

  private static func json(_ request: Request, _ value: some Encodable) throws -> Response {
    try ResponseCompression.response(
      ByteBuffer(bytes: try JSONEncoder().encode(value)), to: request,
      headers: [.contentType: "application/json"])
  }

  /// The largest session the page may import.
  static let importLimit = 64 << 20

  /// The page, read once from the package's resources.
  static let page: [UInt8] = {
    guard let url = Bundle.module.url(forResource: "devtools", withExtension: "html"),
      let data = try? Data(contentsOf: url)
    else {
      return Array("<h1>DevTools: the page is missing from the package's resources</h1>".utf8)
    }
    return Array(data)
  }()
}

/// The session files pages imported, each shown to the page that imported it (by the id it was
/// given) instead of the live recording, until that page goes back to it. The last few are
/// kept: a page whose import was dropped is told to import it again.
final class ImportedSessions: Sendable {
  static let kept = 4
  private let sessions = Mutex<(next: Int, byID: [Int: DevToolsSession])>((1, [:]))

  /// Keeps `session`, dropping the oldest beyond ``kept``, and returns its id.
  func add(_ session: DevToolsSession) -> Int {
    sessions.withLock { sessions in
      let id = sessions.next
      sessions.next += 1
      sessions.byID[id] = session
      sessions.byID = sessions.byID.filter { $0.key > id - Self.kept }
      return id
    }
  }

  /// The session `imported=ID` names, or `nil` when the request reads the live recording.
  func session(for request: Request) throws -> DevToolsSession? {
    guard let value = request.uri.queryParameters.get("imported") else { return nil }
    guard let id = Int(value), let session = sessions.withLock({ $0.byID[id] }) else {
      throw HTTPError(
        .gone, message: "the imported session \(value) is no longer kept: import it again")
    }
    return session
  }
}

/// Why a DevTools server cannot start as asked.
public enum DevToolsServerError: Error, Equatable, CustomStringConvertible {
  /// Listening on an address other than loopback needs a token.
  case tokenRequired(host: String)

  public var description: String {
    switch self {
    case .tokenRequired(let host):
      "DevTools on \(host) would be open to the network: give it a token, or bind 127.0.0.1"
    }
  }
}
