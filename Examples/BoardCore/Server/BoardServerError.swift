/// Why the server (or the board's replica of it) did not do what the board asked.
package enum BoardServerError: Error, Equatable, CustomStringConvertible {
  /// The server could not be reached, or did not answer in time.
  case unreachable(String)
  /// It no longer exists (404, or a card or column the replica no longer holds).
  case gone
  /// The server refused the request as it stands (400, 401 without the token it wants).
  case refused(status: Int, message: String)
  /// The server failed (5xx), or answered what the board cannot read.
  case server(status: Int, message: String)

  package var description: String {
    switch self {
    case .unreachable(let reason): "the server cannot be reached: \(reason)"
    case .gone: "it was deleted elsewhere"
    case .refused(_, let message): "the server refused: \(message)"
    case .server(let status, let message): "the server failed (\(status)): \(message)"
    }
  }
}
