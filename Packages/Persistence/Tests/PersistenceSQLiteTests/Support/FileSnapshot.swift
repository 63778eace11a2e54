import Foundation

/// Every file of a directory, name and bytes: two snapshots are equal when nothing was
/// written, created or removed there.
struct FileSnapshot: Equatable, CustomStringConvertible {
  let files: [String: Data]

  init(_ directory: URL) throws {
    var files: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
      let file = directory.appendingPathComponent(name)
      let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int
      // NB: Foundation's Data(contentsOf:) leaks its 4 KiB read buffer for an empty file
      // (LeakSanitizer, swift-corelibs-foundation on Swift 6.3): an empty file is empty Data.
      files[name] = size == 0 ? Data() : try Data(contentsOf: file)
    }
    self.files = files
  }

  var description: String {
    files.keys.sorted().map { "\($0) (\(files[$0]?.count ?? 0) bytes)" }.joined(separator: ", ")
  }
}
