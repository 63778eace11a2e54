import Foundation
import Logging

/// A swift-log handler appending one line per message to a file: `--log PATH`. The drawn
/// screen never shows a log line.
struct FileLogHandler: LogHandler {
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level = .info
  private let file: FileHandle
  private let label: String

  init(label: String, file: FileHandle) {
    self.label = label
    self.file = file
  }

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    let merged = metadata.merging(event.metadata ?? [:]) { $1 }
    let details =
      merged.isEmpty ? "" : " " + merged.map { "\($0)=\($1)" }.sorted().joined(separator: " ")
    let line = "\(Date().formatted(.iso8601)) \(event.level) \(label): \(event.message)\(details)\n"
    file.write(Data(line.utf8))
  }
}
