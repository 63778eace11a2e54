#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Memory the crash signal handler reads, allocated once and never freed: the handlers that
/// were installed before ``CrashRestore``'s, and the terminal settings to restore.
///
/// A signal handler can neither allocate nor take a lock, so these live at fixed addresses;
/// ``CrashRestore`` orders every write before the handler can read it (see
/// `CrashRestoreStorage+Sendable.swift`).
final class CrashRestoreStorage {
  /// One previous action per handled signal.
  private let previousActions: UnsafeMutablePointer<sigaction>
  /// The settings from before raw mode.
  let settings: UnsafeMutablePointer<termios>
  /// The descriptor of the terminal whose ``settings`` these are.
  private(set) var fileDescriptor: Int32 = STDIN_FILENO

  /// Allocates room for `signalCount` previous actions and one set of settings.
  init(signalCount: Int) {
    previousActions = .allocate(capacity: signalCount)
    previousActions.initialize(repeating: sigaction(), count: signalCount)
    settings = .allocate(capacity: 1)
    settings.initialize(to: termios())
  }

  /// Where the previous action of the signal in `slot` is kept.
  func previousAction(slot: Int) -> UnsafeMutablePointer<sigaction> {
    previousActions + slot
  }

  /// Keeps the settings to restore after a crash.
  func saveSettings(_ original: termios, fileDescriptor: Int32) {
    settings.pointee = original
    self.fileDescriptor = fileDescriptor
  }
}
