import Foundation

/// A fresh directory for one test's database files, removed when the value is released.
final class TemporaryDirectory {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("reduxkit-persistence-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  func file(_ name: String) -> URL {
    url.appendingPathComponent(name)
  }

  deinit {
    try? FileManager.default.removeItem(at: url)
  }
}
