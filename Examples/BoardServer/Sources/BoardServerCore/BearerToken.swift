import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// Who may use the board: a client that sends the server's token, as `Authorization: Bearer
/// <token>`, on every request but `GET /health` (a load balancer's probe, which reads no
/// card). Without it a request gets 401 and reads or changes nothing.
///
/// `board-server` requires a token when it listens beyond loopback (`--token` or
/// `BOARD_SERVER_TOKEN`); on loopback one is optional.
struct BearerToken: RouterMiddleware {
  typealias Context = BasicRequestContext

  /// The token's digest: compared with a request's, in a time that tells nothing of either.
  private let digest: SHA256.Digest

  init(_ token: String) {
    digest = SHA256.hash(data: Data(token.utf8))
  }

  @concurrent
  func handle(
    _ request: Request, context: Context,
    next: @concurrent (Request, Context) async throws -> Response
  ) async throws -> Response {
    if request.method == .get, request.uri.path == "/health" {
      return try await next(request, context)
    }
    // NB: digests, not the strings: swift-crypto compares digests in constant time, and their
    // lengths are the same whatever the token sent.
    guard let authorization = request.headers[.authorization],
      authorization.hasPrefix("Bearer "),
      SHA256.hash(data: Data(authorization.utf8.dropFirst("Bearer ".utf8.count))) == digest
    else {
      throw HTTPError(
        .unauthorized, headers: [.wwwAuthenticate: "Bearer"],
        message: "this board needs its token: Authorization: Bearer <token>")
    }
    return try await next(request, context)
  }
}
