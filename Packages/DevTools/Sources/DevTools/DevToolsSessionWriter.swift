public import Foundation
import Synchronization

/// A session file being written: JSON lines, a header first, then one ``DevToolsRecord`` per
/// line, appended in batches. Each batch is one write of whole lines, so a file cut short by a
/// crash reads back up to its last complete line.
public final class DevToolsSessionWriter: Sendable {
  /// Where it writes.
  public let url: URL
  private let handle: Mutex<FileHandle?>

  /// Creates (or truncates) the file at `url` and writes its header.
  ///
  /// - Parameters:
  ///   - url: The file.
  ///   - app: The app's name, for the header.
  /// - Throws: ``DevToolsSessionError/cannotWrite(_:reason:)``.
  public init(url: URL, app: String) throws(DevToolsSessionError) {
    self.url = url
    guard FileManager.default.createFile(atPath: url.path, contents: nil),
      let handle = FileHandle(forWritingAtPath: url.path)
    else {
      throw .cannotWrite(url.path, reason: "the file cannot be created")
    }
    do {
      var header = try JSONValue.encoder.encode(DevToolsSessionHeader(app: app))
      header.append(0x0A)
      try handle.write(contentsOf: header)
    } catch {
      throw .cannotWrite(url.path, reason: "\(error)")
    }
    self.handle = Mutex(handle)
  }

  /// Appends whole lines, in one write.
  ///
  /// A failure (a full disk) is reported once on standard error and the file is closed: the
  /// recording in memory goes on.
  func write(_ lines: [Data]) {
    guard !lines.isEmpty else { return }
    var batch = Data()
    for line in lines { batch.append(line) }
    handle.withLock { handle in
      guard let file = handle else { return }
      do {
        try file.write(contentsOf: batch)
      } catch {
        FileHandle.standardError.write(
          Data("DevTools: the session file \(url.path) stopped: \(error)\n".utf8))
        try? file.close()
        handle = nil
      }
    }
  }

  /// Closes the file; later batches are not written.
  public func close() {
    handle.withLock { handle in
      try? handle?.close()
      handle = nil
    }
  }
}

/// Why a session file could not be written or read.
public enum DevToolsSessionError: Error, Equatable, CustomStringConvertible {
  /// The file could not be created or written.
  case cannotWrite(String, reason: String)
  /// The file could not be read.
  case cannotRead(String, reason: String)
  /// The first line is not a ReduxKit DevTools header (another kind of file).
  case notASession(String)
  /// A session of a format version this build does not read.
  case unsupportedVersion(Int)
  /// Line `line` (from 1) is not a record: what is wrong with it.
  case malformedLine(Int, reason: String)
  /// The record on line `line` holds an action this app does not know (a session recorded by
  /// another build): its name.
  case unknownAction(line: Int, name: String)

  public var description: String {
    switch self {
    case .cannotWrite(let path, let reason): "cannot write the session file \(path): \(reason)"
    case .cannotRead(let path, let reason): "cannot read the session file \(path): \(reason)"
    case .notASession(let path): "\(path) is not a ReduxKit DevTools session"
    case .unsupportedVersion(let version):
      "the session's format version \(version) is newer than this build reads (\(DevToolsSessionHeader.currentVersion))"
    case .malformedLine(let line, let reason): "line \(line) is not a record: \(reason)"
    case .unknownAction(let line, let name):
      "line \(line) holds the action '\(name)', which this app does not know"
    }
  }
}
