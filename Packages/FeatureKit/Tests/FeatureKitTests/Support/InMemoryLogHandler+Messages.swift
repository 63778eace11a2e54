import InMemoryLogging
import Logging

/// swift-log's in-memory handler, read the way these tests check logs.
extension InMemoryLogHandler {
  /// A logger writing every level to this handler.
  var logger: Logger {
    var logger = Logger(label: "test") { _ in self }
    logger.logLevel = .trace
    return logger
  }

  /// The messages logged at `level`, in order.
  func messages(at level: Logger.Level) -> [String] {
    entries.filter { $0.level == level }.map { "\($0.message)" }
  }
}
