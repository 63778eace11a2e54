import Logging
import Synchronization

/// A swift-log handler that keeps what it is given, for assertions.
final class LogRecorder: Sendable {
  struct Entry: Sendable {
    var level: Logger.Level
    var message: String
  }

  private let entries = Mutex<[Entry]>([])

  var logger: Logger {
    Logger(label: "test") { _ in Handler(recorder: self) }
  }

  func messages(at level: Logger.Level) -> [String] {
    entries.withLock { $0.filter { $0.level == level }.map(\.message) }
  }

  private struct Handler: LogHandler {
    let recorder: LogRecorder
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      recorder.entries.withLock {
        $0.append(Entry(level: event.level, message: "\(event.message)"))
      }
    }
  }
}
