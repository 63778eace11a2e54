import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird

/// The page and the API's answers gzip-compressed for a client that accepts it: a timeline's
/// page of rows, a state, an export are JSON that compresses about tenfold.
enum ResponseCompression {
  /// Below this size an answer goes as it is: compressing would cost more than it saves.
  static let minimumSize = 1_024

  /// `body` as the answer to `request`, compressed when the request accepts gzip and the body
  /// is worth it.
  ///
  /// - Parameters:
  ///   - body: The answer's bytes.
  ///   - request: The request, whose `Accept-Encoding` decides.
  ///   - headers: The answer's headers (its content type, say).
  static func response(
    _ body: ByteBuffer, to request: Request, headers: HTTPFields
  ) throws -> Response {
    var headers = headers
    headers[.vary] = "Accept-Encoding"
    guard body.readableBytes >= minimumSize, acceptsGzip(request.headers[.acceptEncoding]) else {
      return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }
    var input = body
    let compressed = try input.compress(with: .gzip())
    headers[.contentEncoding] = "gzip"
    return Response(status: .ok, headers: headers, body: .init(byteBuffer: compressed))
  }

  /// Whether an `Accept-Encoding` value accepts gzip: `gzip` or `*` listed without `q=0`
  /// (RFC 9110, 12.5.3).
  static func acceptsGzip(_ header: String?) -> Bool {
    guard let header else { return false }
    for item in header.split(separator: ",") {
      let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
      guard let coding = parts.first?.lowercased(), coding == "gzip" || coding == "*" else {
        continue
      }
      let weight = parts.dropFirst().first { $0.lowercased().hasPrefix("q=") }
        .flatMap { Double($0.dropFirst(2)) }
      if weight.map({ $0 > 0 }) ?? true { return true }
    }
    return false
  }
}
