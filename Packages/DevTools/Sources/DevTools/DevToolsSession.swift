public import Foundation

/// A recorded session read back: its header and records, in order.
///
/// A file cut short by a crash reads up to its last complete line (``isTruncated`` says so); a
/// line that is not a record is an error with its number, and nothing after it is guessed at.
public struct DevToolsSession: Sendable {
  /// What wrote the session.
  public let header: DevToolsSessionHeader
  /// The records, in their order in the file.
  public let records: [DevToolsRecord]
  /// Whether the last line was cut short (the app stopped while writing it); it was left out.
  public let isTruncated: Bool

  /// Reads the session file at `url`.
  ///
  /// - Throws: ``DevToolsSessionError``: the file cannot be read, is not a session, is of a
  ///   newer format, or holds a line that is not a record (with its number).
  public init(contentsOf url: URL) throws(DevToolsSessionError) {
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw .cannotRead(url.path, reason: "\(error)")
    }
    try self.init(data: data, path: url.path)
  }

  /// Reads a session from the bytes of a file.
  ///
  /// - Parameters:
  ///   - data: The file's bytes.
  ///   - path: The file's name, for the errors.
  /// - Throws: As ``init(contentsOf:)``.
  public init(data: Data, path: String = "session") throws(DevToolsSessionError) {
    var lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
    // NB: a file ends with a newline; without one, its last line was being written.
    var truncated = false
    if let last = lines.last {
      if last.isEmpty { lines.removeLast() } else { truncated = true }
    }
    let decoder = JSONDecoder()
    guard let first = lines.first,
      let header = try? decoder.decode(DevToolsSessionHeader.self, from: first),
      header.format == "reduxkit-devtools"
    else {
      throw .notASession(path)
    }
    guard header.version <= DevToolsSessionHeader.currentVersion else {
      throw .unsupportedVersion(header.version)
    }
    var records: [DevToolsRecord] = []
    for (offset, line) in lines.enumerated().dropFirst() {
      do {
        records.append(try decoder.decode(DevToolsRecord.self, from: line))
      } catch {
        if truncated, offset == lines.count - 1 { break }
        throw .malformedLine(offset + 1, reason: Self.reason(error))
      }
    }
    if truncated, let last = lines.last,
      (try? decoder.decode(DevToolsRecord.self, from: last)) != nil
    {
      truncated = false  // a complete record without its newline
    }
    self.header = header
    self.records = records
    self.isTruncated = truncated
  }

  /// The record with `index`, if the session holds it.
  public func record(_ index: Int) -> DevToolsRecord? {
    records.first { $0.index == index }
  }

  private static func reason(_ error: any Error) -> String {
    switch error {
    case DecodingError.keyNotFound(let key, _): "no '\(key.stringValue)'"
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
      DecodingError.dataCorrupted(let context):
      context.codingPath.isEmpty
        ? "not JSON" : "'\(context.codingPath.map(\.stringValue).joined(separator: "."))' is wrong"
    default: "\(error)"
    }
  }
}
