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
  private let imported = ImportedSession()
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
    router.get("/") { _, _ in
      Response(
        status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
        body: .init(byteBuffer: ByteBuffer(bytes: Self.page)))
    }
    router.get("api/records") { _, _ in
      try Self.json(
        Timeline(
          app: timeline.app, records: timeline.records(),
          travel: await TravelState(travel)))
    }
    router.get("api/diff") { request, _ in
      let index = try Self.index(request, "index")
      // NB: `imported=1`: a record of the session the page imported, not of the live app.
      let diff =
        if request.uri.queryParameters.get("imported") == "1" {
          imported.session.withLock { $0?.diff(at: index) }
        } else {
          timeline.diff(at: index)
        }
      guard let diff else {
        throw HTTPError(.notFound, message: "no state kept for #\(index) or before it")
      }
      return try Self.json(diff.changes)
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
      imported.session.withLock { $0 = session }
      return try Self.json(
        Timeline(
          app: session.header.app, records: session.records,
          travel: await TravelState(nil)))
    }
    router.get("api/export") { _, _ in
      var lines = try JSONEncoder().encode(DevToolsSessionHeader(app: timeline.app))
      lines.append(0x0A)
      // NB: record 0 too: the state a replay of the file starts from.
      for record in timeline.records() {
        lines.append(try JSONEncoder().encode(record))
        lines.append(0x0A)
      }
      return Response(
        status: .ok,
        headers: [
          .contentType: "application/x-ndjson",
          .contentDisposition: "attachment; filename=\"\(timeline.app).jsonl\"",
        ], body: .init(byteBuffer: ByteBuffer(bytes: lines)))
    }
    router.get("api/events") { _, _ in
      Response(
        status: .ok,
        headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
        body: ResponseBody { writer in
          let (batches, continuation) = AsyncStream.makeStream(of: [DevToolsRecord].self)
          let token = timeline.addListener { continuation.yield($0) }
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
      return try await Self.control(travel) { try $0.jump(to: index) }
    }
    router.post("api/step") { request, _ in
      let offset = try Self.index(request, "by")
      return try await Self.control(travel) { try $0.step(by: offset) }
    }
    router.post("api/skip") { request, _ in
      let index = try Self.index(request, "index")
      guard let travel else { throw HTTPError(.conflict, message: "no time travel here") }
      do {
        try await travel.skip(index)
      } catch {
        throw HTTPError(.conflict, message: "\(error)")
      }
      return try Self.json(await TravelState(travel))
    }
    router.post("api/resume") { _, _ in
      try await Self.control(travel) { $0.resume() }
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

  struct Timeline: Encodable {
    let app: String
    let records: [DevToolsRecord]
    let travel: TravelState
  }

  /// Runs a travel command on the main actor; its refusal is a 409 with the reason.
  private static func control(
    _ travel: (any DevToolsTravelControl)?,
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
    return try json(state)
  }

  private static func index(_ request: Request, _ name: String) throws -> Int {
    guard let value = request.uri.queryParameters.get(name), let index = Int(value) else {
      throw HTTPError(.badRequest, message: "give ?\(name)= a whole number")
    }
    return index
  }

  private static func json(_ value: some Encodable) throws -> Response {
    Response(
      status: .ok, headers: [.contentType: "application/json"],
      body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(value))))
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

/// The session file the page imported last, shown instead of the live recording until the page
/// goes back to it.
final class ImportedSession: Sendable {
  let session = Mutex<DevToolsSession?>(nil)
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
