#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a file descriptor, standard input by default, on a thread of its own and delivers what
/// it reads as an async sequence: lines, or keys in raw mode.
///
/// A blocking `readLine()` on the main actor stops everything else the main actor runs while
/// it waits (a store's dispatches, Persistence's debounced saves, a redraw), for as long as the
/// user does not type. A `LineReader` waits on a dedicated thread instead; the main actor only
/// resumes when a line or a key is there.
///
/// ```swift
/// @MainActor
/// func runCommands() async {
///   for await line in LineReader.standardInput.lines {
///     if line == "quit" { break }
///     handle(line)  // the store and its timers keep running between lines
///   }
/// }
/// ```
///
/// Each `for await` loop over ``lines`` or ``keys`` starts its own thread (see
/// ``TerminalStream``). Read a descriptor through one loop at a time: two running loops would
/// take turns stealing each other's bytes. When a loop stops (the input ended, a `break`, a
/// cancelled task), its thread stops too, without reading further, so the next loop starts where
/// the input is; bytes the old loop had read but not yet delivered (a partial line) are dropped
/// with it.
///
/// The reader never closes the descriptor. Close it only once no loop reads it any more: a
/// thread still reading a number the process has given to another file would read that file.
public struct LineReader: Hashable, Sendable {
  /// The descriptor read: 0 for standard input, or a pipe, a file, a pseudo-terminal.
  public var fileDescriptor: Int32

  /// How long ``keys`` waits after an ESC (or another unfinished sequence) for the rest of a
  /// sequence before it settles the ESC as ``Key/escape``.
  ///
  /// ``KeyDecoder`` explains why a timeout decides.
  public var escapeTimeout: Duration

  /// Makes a reader of a descriptor.
  ///
  /// - Parameters:
  ///   - fileDescriptor: The descriptor to read; the reader does not take ownership of it.
  ///   - escapeTimeout: How long ``keys`` waits for the rest of an escape sequence; 50 ms by
  ///     default.
  public init(fileDescriptor: Int32, escapeTimeout: Duration = .milliseconds(50)) {
    self.fileDescriptor = fileDescriptor
    self.escapeTimeout = escapeTimeout
  }

  /// A reader of standard input.
  public static var standardInput: LineReader {
    LineReader(fileDescriptor: STDIN_FILENO)
  }

  /// The lines of the input, as ``LineDecoder`` splits them, ending at the end of the input.
  ///
  /// A final line without a line end is delivered too; CRLF reads as LF; bytes that are not
  /// UTF-8 read as U+FFFD. On a terminal in its usual (canonical) mode, Ctrl-D on an empty line
  /// ends the stream. Lines are buffered without bound: a loop slower than a piped file holds
  /// the rest of the file in memory.
  public var lines: TerminalStream<String> {
    TerminalStream { [self] in
      ReaderThread.start(reading: fileDescriptor, with: LineDecoder(), quietPeriod: escapeTimeout)
    }
  }

  /// The keys typed, as ``KeyDecoder`` decodes them, ending at the end of the input.
  ///
  /// Meant for a terminal in raw mode (``RawMode``), where each key arrives as it is pressed;
  /// in the usual canonical mode the terminal holds the keys back until Enter. An ESC waits
  /// ``escapeTimeout`` for the rest of a sequence before it is delivered as ``Key/escape``.
  public var keys: TerminalStream<Key> {
    TerminalStream { [self] in
      ReaderThread.start(reading: fileDescriptor, with: KeyDecoder(), quietPeriod: escapeTimeout)
    }
  }
}
