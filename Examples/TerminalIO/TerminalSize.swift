import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The size of a terminal in character cells.
public struct TerminalSize: Hashable, Sendable, CustomStringConvertible {
  /// The number of columns (characters in a line).
  public var columns: Int
  /// The number of rows (lines on the screen).
  public var rows: Int

  /// Makes a size.
  public init(columns: Int, rows: Int) {
    self.columns = columns
    self.rows = rows
  }

  /// 80 columns by 24 rows: the size assumed when neither the terminal nor the environment
  /// tells, as a VT100's screen was.
  public static let fallback = TerminalSize(columns: 80, rows: 24)

  /// `80x24`.
  public var description: String { "\(columns)x\(rows)" }

  /// The size of the terminal behind a descriptor, now.
  ///
  /// Asks the terminal (`ioctl(TIOCGWINSZ)`); when that fails (not a terminal, or one that
  /// reports 0) it reads `COLUMNS` and `LINES` from the environment, and then falls back to
  /// ``fallback``, one dimension at a time (see ``resolve(windowSize:environment:)``).
  ///
  /// - Parameter fileDescriptor: A descriptor on the terminal; standard output (1) by default.
  /// - Returns: The size, never 0 in either dimension.
  public static func current(fileDescriptor: Int32 = 1) -> TerminalSize {
    resolve(
      windowSize: windowSize(fileDescriptor: fileDescriptor),
      environment: ProcessInfo.processInfo.environment)
  }

  /// Picks a size from what the terminal said and the environment: the pure part of
  /// ``current(fileDescriptor:)``.
  ///
  /// Each dimension comes from the first source that gives a positive number: `windowSize`,
  /// then the environment's `COLUMNS` or `LINES`, then ``fallback``.
  ///
  /// - Parameters:
  ///   - windowSize: What `ioctl(TIOCGWINSZ)` reported, or `nil` when it failed.
  ///   - environment: The process's environment variables.
  /// - Returns: The size, never 0 in either dimension.
  public static func resolve(windowSize: TerminalSize?, environment: [String: String])
    -> TerminalSize
  {
    func pick(_ reported: Int?, _ variable: String, _ fallback: Int) -> Int {
      if let reported, reported > 0 { return reported }
      if let value = environment[variable].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }
      ),
        value > 0
      {
        return value
      }
      return fallback
    }
    return TerminalSize(
      columns: pick(windowSize?.columns, "COLUMNS", fallback.columns),
      rows: pick(windowSize?.rows, "LINES", fallback.rows))
  }

  /// What `ioctl(TIOCGWINSZ)` reports for `fileDescriptor`, or `nil` when it fails.
  static func windowSize(fileDescriptor: Int32) -> TerminalSize? {
    var size = winsize()
    guard ioctl(fileDescriptor, UInt(TIOCGWINSZ), &size) == 0 else { return nil }
    return TerminalSize(columns: Int(size.ws_col), rows: Int(size.ws_row))
  }
}
