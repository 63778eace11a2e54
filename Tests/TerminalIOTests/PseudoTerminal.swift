import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A pseudo-terminal pair: the test plays the terminal on `controller` and the app reads and
/// sets modes on `device`, as it would on its real terminal.
final class PseudoTerminal: Sendable {
  let controller: Int32
  let device: Int32

  init(sourceLocation: SourceLocation = #_sourceLocation) throws {
    let controller = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    try #require(controller >= 0, "cannot open /dev/ptmx", sourceLocation: sourceLocation)
    let name = try Self.unlockDevice(of: controller, sourceLocation: sourceLocation)
    let device = open(name, O_RDWR | O_NOCTTY)
    try #require(device >= 0, "cannot open \(name)", sourceLocation: sourceLocation)
    self.controller = controller
    self.device = device
  }

  /// Unlocks the device side of `controller` and returns its path.
  private static func unlockDevice(of controller: Int32, sourceLocation: SourceLocation) throws
    -> String
  {
    #if canImport(Glibc)
      // NB: Swift's Glibc module leaves out posix_openpt, grantpt, unlockpt and ptsname (they
      // need _XOPEN_SOURCE); these are the ioctls behind them, TIOCSPTLCK and TIOCGPTN in
      // their asm-generic encoding (x86_64, arm64).
      var locked: Int32 = 0
      try #require(
        ioctl(controller, 0x4004_5431, &locked) == 0, "TIOCSPTLCK failed",
        sourceLocation: sourceLocation)
      var number: UInt32 = 0
      try #require(
        ioctl(controller, 0x8004_5430, &number) == 0, "TIOCGPTN failed",
        sourceLocation: sourceLocation)
      return "/dev/pts/\(number)"
    #else
      try #require(
        grantpt(controller) == 0 && unlockpt(controller) == 0, "unlockpt failed",
        sourceLocation: sourceLocation)
      let name = ptsname(controller)
      return String(cString: try #require(name, sourceLocation: sourceLocation))
    #endif
  }

  deinit {
    close(device)
    close(controller)
  }

  /// Types `text` as if on the keyboard.
  func type(_ text: String) {
    var bytes = Array(text.utf8)
    _ = write(controller, &bytes, bytes.count)
  }

  /// The device's current settings.
  func settings() -> termios {
    var settings = termios()
    _ = tcgetattr(device, &settings)
    return settings
  }
}
