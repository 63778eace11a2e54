import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The process's terminal: whether there is one, its size, full-screen mode and the way back.
///
/// An app asks ``isInteractive`` to choose between a full-screen interface and line mode. In
/// full screen it calls ``enterFullScreen(generatesSignals:)`` once and ``restore()`` on every
/// way out: in a `defer`, and in its termination handler (`SIGTERM`, `SIGHUP`). ``restore()``
/// also runs by itself when the process calls `exit`, and a crash (a trap, `SIGSEGV`, `abort`)
/// puts the terminal's settings back before the process dies.
///
/// ```swift
/// guard Terminal.isInteractive else { return await runLineMode() }
/// try Terminal.enterFullScreen()
/// defer { Terminal.restore() }
/// ```
public enum Terminal {
  /// What the process changed on its terminal, to undo.
  struct Changes: Sendable {
    /// The raw mode entered, whose settings ``Terminal/restore()`` puts back.
    var rawMode: RawMode?
    /// Whether the alternate screen is on (and the cursor hidden).
    var isFullScreen = false
    /// Whether `atexit` will call ``Terminal/restore()``.
    var restoresAtExit = false
  }

  /// The changes to undo; locked so ``restore()`` can run from any thread.
  static let changes = Mutex(Changes())

  /// Whether a descriptor is a terminal (`isatty`).
  public static func isTerminal(_ fileDescriptor: Int32) -> Bool {
    isatty(fileDescriptor) == 1
  }

  /// Whether standard input is a terminal: keys can be read from it.
  ///
  /// `false` when input comes from a pipe or a file (a script, CI): read it as lines.
  public static var isInputTerminal: Bool { isTerminal(STDIN_FILENO) }

  /// Whether standard output is a terminal: control sequences will be understood.
  ///
  /// `false` when output goes to a pipe or a file, which should get plain lines.
  public static var isOutputTerminal: Bool { isTerminal(STDOUT_FILENO) }

  /// Whether both standard input and standard output are terminals: what a full-screen
  /// interface needs.
  public static var isInteractive: Bool { isInputTerminal && isOutputTerminal }

  /// The size of the terminal behind standard output, now (see
  /// ``TerminalSize/current(fileDescriptor:)`` for the fallbacks).
  public static var size: TerminalSize { TerminalSize.current() }

  /// Writes text to standard output at once, unbuffered.
  ///
  /// Flushes the C library's buffered output first (`print` goes there), so text printed before
  /// comes out before. Retries interrupted and partial writes; gives up silently when standard
  /// output is closed.
  ///
  /// - Complexity: O(*n*), where *n* is the length of `text` in UTF-8.
  public static func write(_ text: String) {
    fflush(nil)
    writeAll(text, to: STDOUT_FILENO)
  }

  /// Switches to full-screen mode: raw mode on standard input, the alternate screen, the cursor
  /// hidden, bracketed paste on (a paste arrives as one ``Key/paste(_:)``).
  ///
  /// Does nothing if full-screen mode is already on. From the first call on, ``restore()`` runs
  /// at `exit`, and a crash signal restores the terminal's settings before the process dies
  /// (the signal then goes to the handler that was there before, such as Swift's backtracer).
  ///
  /// - Parameter generatesSignals: Whether Ctrl-C and Ctrl-Z still send `SIGINT` and `SIGTSTP`
  ///   (see ``RawMode``); by default they arrive as keys.
  /// - Throws: ``TerminalError/notATerminal(fileDescriptor:)`` when standard input or output
  ///   is not a terminal; ``TerminalError/systemCall(_:errno:)`` when raw mode fails.
  public static func enterFullScreen(generatesSignals: Bool = false) throws(TerminalError) {
    guard isOutputTerminal else { throw .notATerminal(fileDescriptor: STDOUT_FILENO) }
    try changes.withLock { (changes: inout Changes) throws(TerminalError) in
      if changes.rawMode == nil {
        changes.rawMode = try RawMode.enter(generatesSignals: generatesSignals)
      }
      if !changes.isFullScreen {
        fflush(nil)
        writeAll(
          ControlSequence.enterAlternateScreen + ControlSequence.hideCursor
            + ControlSequence.enableBracketedPaste + ControlSequence.eraseScreen,
          to: STDOUT_FILENO)
        changes.isFullScreen = true
      }
      armRestore(&changes)
    }
  }

  /// Switches standard input to raw mode without the alternate screen: keys as they are typed,
  /// for an interface that draws below the shell's prompt.
  ///
  /// ``restore()`` undoes it, and runs at `exit` and on a crash as with
  /// ``enterFullScreen(generatesSignals:)``. Does nothing if raw mode is already on.
  ///
  /// - Throws: ``TerminalError/notATerminal(fileDescriptor:)`` when standard input is not a
  ///   terminal; ``TerminalError/systemCall(_:errno:)`` when raw mode fails.
  public static func enterRawMode(generatesSignals: Bool = false) throws(TerminalError) {
    try changes.withLock { (changes: inout Changes) throws(TerminalError) in
      if changes.rawMode == nil {
        changes.rawMode = try RawMode.enter(generatesSignals: generatesSignals)
      }
      armRestore(&changes)
    }
  }

  /// Undoes everything ``enterFullScreen(generatesSignals:)`` and
  /// ``enterRawMode(generatesSignals:)`` did: styles off, the cursor shown, the alternate screen
  /// left (the shell's screen comes back), the terminal's settings from before raw mode.
  ///
  /// Safe to call more than once and from any thread: in a `defer`, in a termination handler
  /// run by a Dispatch signal source or a task, at `exit`. Not from a bare C signal handler
  /// (`signal(2)`): it takes a lock.
  public static func restore() {
    changes.withLock { changes in
      CrashRestore.disarm()
      if changes.isFullScreen {
        fflush(nil)
        writeAll(
          ControlSequence.resetStyle + ControlSequence.showCursor
            + ControlSequence.disableBracketedPaste + ControlSequence.leaveAlternateScreen,
          to: STDOUT_FILENO)
        changes.isFullScreen = false
      }
      changes.rawMode?.restore()
      changes.rawMode = nil
    }
  }

  /// Makes sure the terminal is put back at `exit` and on a crash. Called under the lock.
  private static func armRestore(_ changes: inout Changes) {
    if !changes.restoresAtExit {
      // NB: `atexit` runs on `exit(_:)` and on return from `main`, not on a signal's default
      // action; the app's termination handler calls `restore()` for those.
      atexit { Terminal.restore() }
      changes.restoresAtExit = true
    }
    CrashRestore.install()
    CrashRestore.arm(rawMode: changes.rawMode, isFullScreen: changes.isFullScreen)
  }
}

/// Writes all of `text` to `fileDescriptor`, retrying interrupted and partial writes; gives up
/// on any other error.
func writeAll(_ text: String, to fileDescriptor: Int32) {
  var text = text
  text.withUTF8 { bytes in
    guard let base = bytes.baseAddress else { return }
    var offset = 0
    while offset < bytes.count {
      let written = write(fileDescriptor, base + offset, bytes.count - offset)
      if written > 0 {
        offset += written
      } else if written < 0 && errno == EINTR {
        continue
      } else {
        return
      }
    }
  }
}
