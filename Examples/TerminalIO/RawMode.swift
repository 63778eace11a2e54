#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A terminal switched to raw mode, and what it takes to switch it back.
///
/// In raw mode the terminal delivers each key as it is pressed, without echoing it, instead of
/// holding a line until Enter: what a full-screen app reads through ``LineReader/keys``. Ctrl-C,
/// Ctrl-Z and Ctrl-\\ no longer send signals unless asked (`generatesSignals`): they arrive as
/// keys. Output processing stays on, so a stray `print` still starts its next line at column 0.
///
/// A terminal left in raw mode stays unusable after the app exits (no echo, no line editing)
/// until the user types `reset`. Prefer ``Terminal/enterFullScreen(generatesSignals:)`` and
/// ``Terminal/restore()``, which also restore on `exit` and on a crash; with a bare `RawMode`,
/// call ``restore()`` in a `defer` and in the app's termination handler.
public struct RawMode: Sendable {
  /// The descriptor whose terminal is in raw mode.
  public let fileDescriptor: Int32

  /// The settings before raw mode, which ``restore()`` puts back.
  let original: termios

  /// Switches the terminal behind `fileDescriptor` to raw mode.
  ///
  /// - Parameters:
  ///   - fileDescriptor: A descriptor on the terminal; standard input (0) by default.
  ///   - generatesSignals: Whether Ctrl-C, Ctrl-Z and Ctrl-\\ still send `SIGINT`, `SIGTSTP` and
  ///     `SIGQUIT`; by default they arrive as ``Key/control(_:)`` keys.
  /// - Returns: The raw mode, to ``restore()`` later.
  /// - Throws: ``TerminalError/notATerminal(fileDescriptor:)`` when the descriptor is not a
  ///   terminal (a pipe, a file), ``TerminalError/systemCall(_:errno:)`` when the terminal
  ///   refuses the settings.
  public static func enter(fileDescriptor: Int32 = 0, generatesSignals: Bool = false)
    throws(TerminalError) -> RawMode
  {
    guard isatty(fileDescriptor) == 1 else {
      throw .notATerminal(fileDescriptor: fileDescriptor)
    }
    var original = termios()
    guard tcgetattr(fileDescriptor, &original) == 0 else {
      throw .systemCall("tcgetattr", errno: errno)
    }
    var raw = Self.rawSettings(from: original, generatesSignals: generatesSignals)
    guard tcsetattr(fileDescriptor, TCSANOW, &raw) == 0 else {
      throw .systemCall("tcsetattr", errno: errno)
    }
    return RawMode(fileDescriptor: fileDescriptor, original: original)
  }

  /// Puts the settings from before raw mode back.
  ///
  /// Safe to call more than once. Input typed but not yet read is discarded, so keys pressed
  /// during the app's last moments do not spill into the shell.
  public func restore() {
    var settings = original
    _ = tcsetattr(fileDescriptor, TCSAFLUSH, &settings)
  }

  /// `settings` with echo, line editing, input translation and (unless `generatesSignals`)
  /// signal keys turned off, reads returning as soon as one byte is there.
  static func rawSettings(from settings: termios, generatesSignals: Bool) -> termios {
    var raw = settings
    raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
    raw.c_cflag |= tcflag_t(CS8)
    raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN)
    if !generatesSignals { raw.c_lflag &= ~tcflag_t(ISIG) }
    withUnsafeMutableBytes(of: &raw.c_cc) { controlCharacters in
      controlCharacters[Int(VMIN)] = 1
      controlCharacters[Int(VTIME)] = 0
    }
    return raw
  }
}

/// A terminal operation that failed.
public enum TerminalError: Error, Hashable, Sendable {
  /// The descriptor is not a terminal: input or output is a pipe or a file.
  case notATerminal(fileDescriptor: Int32)
  /// A system call failed with `errno`.
  case systemCall(String, errno: Int32)
}
