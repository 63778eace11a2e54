/// The ANSI (ECMA-48) control sequences TerminalIO writes, for an app that writes its own.
///
/// Every terminal emulator in use today understands these; none of them needs terminfo.
public enum ControlSequence {
  /// Switches to the alternate screen (saving the cursor): the shell's scrollback stays as it
  /// was, and leaving brings it back.
  public static let enterAlternateScreen = "\u{1B}[?1049h"
  /// Leaves the alternate screen and restores the cursor.
  public static let leaveAlternateScreen = "\u{1B}[?1049l"
  /// Hides the cursor.
  public static let hideCursor = "\u{1B}[?25l"
  /// Shows the cursor.
  public static let showCursor = "\u{1B}[?25h"
  /// Asks the terminal to bracket pasted text with `ESC [ 200 ~` and `ESC [ 201 ~`, which
  /// ``KeyDecoder`` delivers as one ``Key/paste(_:)``.
  public static let enableBracketedPaste = "\u{1B}[?2004h"
  /// Pasted text arrives as typed again.
  public static let disableBracketedPaste = "\u{1B}[?2004l"
  /// Erases the whole screen (the cursor stays where it was).
  public static let eraseScreen = "\u{1B}[2J"
  /// Erases from the cursor to the end of its line.
  public static let eraseToEndOfLine = "\u{1B}[K"
  /// Turns every text style off.
  public static let resetStyle = "\u{1B}[0m"

  /// Moves the cursor to a cell.
  ///
  /// - Parameters:
  ///   - row: The row, from 0 at the top.
  ///   - column: The column, from 0 at the left.
  /// - Returns: `ESC [ row+1 ; column+1 H` (the terminal counts from 1).
  public static func moveCursor(row: Int, column: Int) -> String {
    "\u{1B}[\(row + 1);\(column + 1)H"
  }

  /// Selects a text style (SGR), after turning every other style off.
  ///
  /// - Returns: `ESC [ 0 ; codes m`, or ``resetStyle`` for the plain style.
  public static func selectStyle(_ style: TextStyle) -> String {
    var codes = ["0"]
    if style.contains(.bold) { codes.append("1") }
    if style.contains(.dim) { codes.append("2") }
    if style.contains(.italic) { codes.append("3") }
    if style.contains(.underline) { codes.append("4") }
    if style.contains(.inverse) { codes.append("7") }
    return "\u{1B}[\(codes.joined(separator: ";"))m"
  }
}
