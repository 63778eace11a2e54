import Foundation

/// Every file of a directory, name and bytes: two snapshots are equal when nothing was
/// written, created or removed there.
struct FileSnapshot: Equatable, CustomStringConvertible {
  let files: [String: Data]

  init(_ directory: URL) throws {
    var files: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
      files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
    }
    self.files = files
  }

  var description: String {
    files.keys.sorted().map { "\($0) (\(files[$0]?.count ?? 0) bytes)" }.joined(separator: ", ")
  }
}
