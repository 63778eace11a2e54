/// Draws frames on a full screen, writing only the rows that changed since the last frame.
///
/// The renderer keeps the last frame it drew. ``render(_:)`` compares the next frame with it row
/// by row and returns the bytes that bring the screen from one to the other: nothing at all when
/// nothing changed. The first frame, and the first after a resize or ``invalidate()``, erases
/// the screen and draws every row.
///
/// ```swift
/// var renderer = ScreenRenderer(size: Terminal.size)
/// Terminal.write(renderer.render(ScreenFrame(lines: ["Board", "", "> Write the docs"])))
/// ```
///
/// The renderer never writes anything itself: ``render(_:)`` returns a string and the app writes
/// it (``Terminal/write(_:)``), so the renderer is a value that tests can drive without a
/// terminal. It assumes nothing else writes to the screen between frames; after something did
/// (a subprocess, a stray `print`), call ``invalidate()``.
public struct ScreenRenderer: Sendable {
  /// The size of the screen drawn on. Setting a different size forgets the last frame, so the
  /// next one is drawn in full: after a resize the terminal's contents cannot be trusted.
  public var size: TerminalSize {
    didSet { if size != oldValue { previousFrame = nil } }
  }

  /// The last frame drawn, or `nil` when the next frame is drawn in full.
  public private(set) var previousFrame: ScreenFrame?

  /// Makes a renderer for a screen whose contents are unknown: the first frame is drawn in full.
  public init(size: TerminalSize) {
    self.size = size
  }

  /// Returns the bytes that draw `frame` over the last frame, and remembers `frame`.
  ///
  /// - Returns: The control sequences and text to write to the terminal; empty when `frame`
  ///   looks the same as the last one.
  /// - Complexity: O(*r* × *w*), where *r* is the number of rows and *w* the number of columns.
  public mutating func render(_ frame: ScreenFrame) -> String {
    defer { previousFrame = frame }
    return Self.output(for: frame, after: previousFrame, size: size)
  }

  /// Forgets the last frame, so the next one is drawn in full.
  public mutating func invalidate() {
    previousFrame = nil
  }

  /// The bytes that bring a screen showing `previous` to `frame`: the pure core of
  /// ``render(_:)``.
  ///
  /// With no previous frame, it hides the cursor, erases the screen and draws every non-blank
  /// row. Otherwise it moves to each row that looks different and redraws that row alone,
  /// erasing the rest of it when the new text is shorter. Each row is cut at the screen's
  /// width without splitting a character (``DisplayWidth``); a control character is drawn as
  /// U+FFFD so it cannot move the cursor. Last it places, shows or hides the cursor as
  /// ``ScreenFrame/cursor`` asks.
  ///
  /// - Parameters:
  ///   - frame: The frame to draw.
  ///   - previous: The frame on the screen now, or `nil` when its contents are unknown.
  ///   - size: The size of the screen.
  /// - Returns: The control sequences and text to write; empty when nothing changes.
  /// - Complexity: O(*r* × *w*), where *r* is the number of rows and *w* the number of columns.
  public static func output(
    for frame: ScreenFrame, after previous: ScreenFrame?, size: TerminalSize
  )
    -> String
  {
    let width = max(size.columns, 0)
    var output = ""
    if previous == nil {
      output += ControlSequence.hideCursor + ControlSequence.resetStyle
      output += ControlSequence.moveCursor(row: 0, column: 0) + ControlSequence.eraseScreen
    }
    for row in 0..<max(size.rows, 0) {
      let line = frame.lines.indices.contains(row) ? frame.lines[row] : ScreenLine()
      guard let previous else {
        let drawn = drawnRow(line, width: width)
        if !drawn.text.isEmpty {
          output += ControlSequence.moveCursor(row: row, column: 0) + drawn.text
        }
        continue
      }
      let old = previous.lines.indices.contains(row) ? previous.lines[row] : ScreenLine()
      guard line != old else { continue }
      let drawn = drawnRow(line, width: width)
      guard drawn != drawnRow(old, width: width) else { continue }
      output += ControlSequence.moveCursor(row: row, column: 0) + drawn.text
      if drawn.columns < width { output += ControlSequence.eraseToEndOfLine }
    }
    let wasCursorShown = previous.map { $0.cursor != nil } ?? false
    if let cursor = clamped(frame.cursor, to: size) {
      if !output.isEmpty || cursor != clamped(previous?.cursor, to: size) {
        output += ControlSequence.moveCursor(row: cursor.row, column: cursor.column)
      }
      if !wasCursorShown { output += ControlSequence.showCursor }
    } else if wasCursorShown {
      output += ControlSequence.hideCursor
    }
    return output
  }

  /// A row as drawn: its text with style changes, cut to `width` columns, and the columns it
  /// takes.
  static func drawnRow(_ line: ScreenLine, width: Int) -> (text: String, columns: Int) {
    var text = ""
    var columns = 0
    var style: TextStyle = []
    drawing: for span in line.spans {
      for character in span.text {
        let shown = isControl(character) ? "\u{FFFD}" : character
        let characterColumns = DisplayWidth.columns(of: shown)
        if columns + characterColumns > width { break drawing }
        if span.style != style {
          text += ControlSequence.selectStyle(span.style)
          style = span.style
        }
        text.append(shown)
        columns += characterColumns
      }
    }
    if !style.isEmpty { text += ControlSequence.resetStyle }
    return (text, columns)
  }

  /// Whether a character would act on the terminal instead of showing: C0 and C1 controls,
  /// DEL, and line ends (`"\r\n"` is one character).
  private static func isControl(_ character: Character) -> Bool {
    guard let first = character.unicodeScalars.first else { return false }
    return first.value < 0x20 || (0x7F..<0xA0).contains(first.value)
  }

  /// `position` moved onto the screen, or `nil` when there is no position or no screen.
  private static func clamped(_ position: ScreenPosition?, to size: TerminalSize)
    -> ScreenPosition?
  {
    guard let position, size.rows > 0, size.columns > 0 else { return nil }
    return ScreenPosition(
      row: min(max(position.row, 0), size.rows - 1),
      column: min(max(position.column, 0), size.columns - 1))
  }
}
