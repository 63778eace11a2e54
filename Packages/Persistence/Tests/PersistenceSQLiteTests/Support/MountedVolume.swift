import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A small tmpfs mounted on a fresh directory, for the media a test cannot make otherwise: a
/// full disk, a read-only volume (tests run as root, and `chmod` does not stop root).
/// Unmounted when released.
final class MountedVolume {
  let url: URL

  /// Whether this process may mount (Linux, root with `CAP_SYS_ADMIN`).
  static let isAvailable: Bool = {
    do {
      _ = try MountedVolume(kilobytes: 64)
      return true
    } catch {
      return false
    }
  }()

  struct MountFailed: Error, CustomStringConvertible {
    let operation: String
    let code: Int32
    var description: String { "\(operation) failed: errno \(code)" }
  }

  init(kilobytes: Int) throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("reduxkit-volume-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    #if os(Linux)
      // NB: huge=never: a kernel whose tmpfs defaults to huge or large pages fills a small
      // volume with the first file's first page, and the "full disk" comes too early.
      let options = "size=\(kilobytes)k,huge=never"
      guard mount("tmpfs", url.path, "tmpfs", 0, options) == 0 else {
        let code = errno
        try? FileManager.default.removeItem(at: url)
        throw MountFailed(operation: "mount", code: code)
      }
    #else
      try? FileManager.default.removeItem(at: url)
      throw MountFailed(operation: "mount", code: -1)
    #endif
  }

  func file(_ name: String) -> URL {
    url.appendingPathComponent(name)
  }

  /// Makes the volume read-only: every write to it fails with `EROFS`, root's too.
  func remountReadOnly() throws {
    #if os(Linux)
      let remount: UInt = 32  // MS_REMOUNT
      let readOnly: UInt = 1  // MS_RDONLY
      // NB: the kernel refuses (EBUSY) while a file of the volume is open for writing. A test
      // that starts a process (the crash and two-process tests) while this one copies its files
      // gives the child, between its fork and its exec, a copy of the descriptor being written;
      // the child closes it within moments, so the remount is tried again for up to a second.
      var attempts = 0
      while mount("tmpfs", url.path, "tmpfs", remount | readOnly, nil) != 0 {
        let code = errno
        attempts += 1
        guard code == EBUSY, attempts < 50 else {
          throw MountFailed(operation: "remount read-only", code: code)
        }
        usleep(20_000)
      }
    #endif
  }

  deinit {
    #if os(Linux)
      _ = umount2(url.path, 2)  // MNT_DETACH
    #endif
    try? FileManager.default.removeItem(at: url)
  }
}

/// A directory that this process cannot write: `chmod` for an ordinary user, a read-only
/// mount for root (whom `chmod` does not stop).
enum ReadOnlyMedia {
  static var isAvailable: Bool {
    #if os(Linux)
      geteuid() != 0 || MountedVolume.isAvailable
    #else
      true
    #endif
  }

  static let unavailableReason: Comment =
    "running as root without the right to mount: chmod does not stop root's writes, and no read-only volume can be made"
}
