import HTTPTypes
import Hummingbird

/// Who may read the recording and drive the live app: only the page the server itself served,
/// to the developer who has the token. Every request carries the token (`?token=`, an
/// `Authorization: Bearer` header, or the cookie the page's first load sets), is addressed to
/// the bound host (a DNS-rebinding page names its own), and, from a browser, comes from the
/// page's own origin; state-changing requests must name that origin. Every answer forbids
/// framing.
///
/// NB: loopback is no protection on its own: any web page the developer has open can send
/// requests to `127.0.0.1` (a plain `POST` needs no CORS preflight), and a page on another port
/// of `127.0.0.1` is even the same *site*, so its requests carry a `SameSite` cookie. The
/// token keeps out the pages that do not know it; the origin check, the pages that do.
struct AccessCheck: RouterMiddleware {
  typealias Context = BasicRequestContext

  /// The cookie that carries the token once the page has been opened with it.
  static let cookie = "reduxkit-devtools"

  let token: String
  /// The host names a request may be addressed to; `nil`: any (bound to every interface).
  let hosts: Set<String>?

  init(token: String, boundTo host: String) {
    self.token = token
    if ["0.0.0.0", "::", ""].contains(host) {
      hosts = nil
    } else if DevToolsServer.Configuration(host: host).isLoopback {
      hosts = ["127.0.0.1", "localhost", "[::1]", "::1"]
    } else {
      hosts = [host.lowercased(), "[\(host.lowercased())]"]
    }
  }

  @concurrent
  func handle(
    _ request: Request, context: Context,
    next: @concurrent (Request, Context) async throws -> Response
  ) async throws -> Response {
    let authority = request.head.authority
    if let hosts, let authority, !hosts.contains(Self.hostName(of: authority)) {
      throw HTTPError(
        .misdirectedRequest, message: "DevTools answers only at the address it printed")
    }
    let site = request.headers[Self.secFetchSite]
    // NB: a link from another site may open the page itself, which holds no data.
    let isNavigation =
      request.method == .get && request.uri.path == "/"
      && request.headers[Self.secFetchMode] == "navigate"
    if let site, !["same-origin", "none"].contains(site), !isNavigation {
      throw HTTPError(.forbidden, message: "DevTools answers only its own page")
    }
    if request.method != .get && request.method != .head {
      // NB: a browser names the origin of every cross-origin request, and of every
      // same-origin one but a GET or HEAD; a client that is not a browser names none.
      if let origin = request.headers[.origin],
        origin.lowercased() != "http://\((authority ?? "").lowercased())"
      {
        throw HTTPError(.forbidden, message: "DevTools takes commands only from its own page")
      }
    }
    guard let given = Self.token(of: request), Self.same(given, token) else {
      throw HTTPError(.unauthorized, message: "this DevTools page needs its token: ?token=…")
    }
    var response = try await next(request, context)
    response.headers[Self.frameOptions] = "DENY"
    response.headers[.contentSecurityPolicy] = "frame-ancestors 'none'"
    response.headers[.xContentTypeOptions] = "nosniff"
    // NB: the page's address holds the token: no other site is told it.
    response.headers[Self.referrerPolicy] = "no-referrer"
    if request.uri.path == "/", request.uri.queryParameters.get("token") != nil {
      response.headers[.setCookie] =
        "\(Self.cookie)=\(token); Path=/; HttpOnly; SameSite=Strict"
    }
    return response
  }

  /// The token a request carries: in its query, as a bearer, or in the page's cookie.
  private static func token(of request: Request) -> String? {
    if let query = request.uri.queryParameters.get("token") { return String(query) }
    if let authorization = request.headers[.authorization] {
      guard authorization.hasPrefix("Bearer ") else { return nil }
      return String(authorization.dropFirst("Bearer ".count))
    }
    for cookies in request.headers[values: .cookie] {
      for pair in cookies.split(separator: ";") {
        let parts = pair.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, parts[0].trimmingPrefix(" ") == cookie else { continue }
        return String(parts[1])
      }
    }
    return nil
  }

  /// Whether `given` is `token`, in a time that depends on the token's length only: a
  /// comparison that stops at the first difference tells a timing attacker how much matched.
  static func same(_ given: String, _ token: String) -> Bool {
    let given = Array(given.utf8)
    var difference = given.count ^ token.utf8.count
    for (offset, byte) in token.utf8.enumerated() {
      difference |= Int((offset < given.count ? given[offset] : 0) ^ byte)
    }
    return difference == 0
  }

  /// The host name of an authority (`host:port`, `[::1]:port`), lowercased.
  static func hostName(of authority: String) -> String {
    let authority = authority.lowercased()
    if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
      return String(authority[...end])
    }
    if authority.filter({ $0 == ":" }).count == 1, let colon = authority.firstIndex(of: ":") {
      return String(authority[..<colon])
    }
    return authority
  }

  private static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
  private static let secFetchMode = HTTPField.Name("Sec-Fetch-Mode")!
  private static let frameOptions = HTTPField.Name("X-Frame-Options")!
  private static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
}
