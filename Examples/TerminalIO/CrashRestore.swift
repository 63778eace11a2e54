import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Puts the terminal back when the process dies of a crash signal, then lets the signal go on
/// to the handler that was there before (Swift's backtracer, or the default action).
///
/// A trap (`fatalError`, a failed `precondition`, an overflow), a bad access or `abort` kills
/// the process without running `atexit` handlers or `defer`s, and would leave the shell in raw
/// mode on the alternate screen. The signal handler here does only what is async-signal-safe:
/// it loads an atomic, writes a static string with `write(2)`, calls `tcsetattr(3)` with
/// settings saved beforehand, puts the previous handler back with `sigaction(2)` and raises the
/// signal again, which is delivered to that handler as soon as this one returns.
enum CrashRestore {
  /// Bits of ``armed``.
  private static let rawModeBit: UInt8 = 1 << 0
  private static let fullScreenBit: UInt8 = 1 << 1

  /// What the handler restores: the raw mode and full-screen bits, 0 when nothing is to be
  /// restored. Stored with release ordering after ``storage`` is written, loaded with acquire.
  private static let armed = Atomic<UInt8>(0)

  /// Whether the handlers are installed; set once.
  private static let isInstalled = Atomic<Bool>(false)

  /// Whether ``storage`` holds the terminal settings; set once.
  private static let hasSavedSettings = Atomic<Bool>(false)

  /// The crash signals handled.
  static let signals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT]

  /// The previous handlers and the settings to restore, readable from the handler.
  private static let storage = CrashRestoreStorage(signalCount: signals.count)

  /// Installs the handlers, once per process.
  static func install() {
    guard
      isInstalled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
        .exchanged
    else { return }
    for (slot, signal) in signals.enumerated() {
      var action = sigaction()
      sigemptyset(&action.sa_mask)
      // NB: on the alternate signal stack when there is one (Swift's backtracer installs one),
      // so a stack overflow can still be handled.
      action.sa_flags = Int32(SA_ONSTACK)
      #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = { signal in CrashRestore.handle(signal) }
      #elseif canImport(Darwin)
        action.__sigaction_u.__sa_handler = { signal in CrashRestore.handle(signal) }
      #endif
      // NB: the kernel stores the previous action in `storage` before the new handler can run.
      _ = sigaction(signal, &action, storage.previousAction(slot: slot))
    }
  }

  /// Records what to restore after a crash. Called under ``Terminal``'s lock.
  static func arm(rawMode: RawMode?, isFullScreen: Bool) {
    var bits: UInt8 = 0
    if let rawMode {
      // NB: the settings are written once, before `hasSavedSettings` publishes them, and never
      // again, so the handler never reads them while they are being written. They are the
      // terminal's settings from before the first raw mode, which every later raw mode of
      // standard input saves too.
      if !hasSavedSettings.load(ordering: .acquiring) {
        storage.saveSettings(rawMode.original, fileDescriptor: rawMode.fileDescriptor)
        hasSavedSettings.store(true, ordering: .releasing)
      }
      bits |= rawModeBit
    }
    if isFullScreen { bits |= fullScreenBit }
    armed.store(bits, ordering: .releasing)
  }

  /// Nothing to restore any more: the terminal was put back.
  static func disarm() {
    armed.store(0, ordering: .releasing)
  }

  /// The signal handler.
  private static func handle(_ signal: Int32) {
    let bits = armed.exchange(0, ordering: .acquiringAndReleasing)
    if bits & fullScreenBit != 0 {
      let leave: StaticString = "\u{1B}[0m\u{1B}[?25h\u{1B}[?2004l\u{1B}[?1049l"
      _ = write(STDOUT_FILENO, leave.utf8Start, leave.utf8CodeUnitCount)
    }
    if bits & rawModeBit != 0, hasSavedSettings.load(ordering: .acquiring) {
      _ = tcsetattr(storage.fileDescriptor, TCSAFLUSH, storage.settings)
    }
    if let slot = slot(of: signal) {
      _ = sigaction(signal, storage.previousAction(slot: slot), nil)
    }
    // NB: blocked while this handler runs; delivered to the previous handler when it returns.
    _ = raise(signal)
  }

  /// The index of `signal` in ``signals``, without touching the array (a signal handler should
  /// not retain or release).
  private static func slot(of signal: Int32) -> Int? {
    switch signal {
    case SIGSEGV: 0
    case SIGBUS: 1
    case SIGILL: 2
    case SIGTRAP: 3
    case SIGFPE: 4
    case SIGABRT: 5
    default: nil
    }
  }
}
