/// One line of a frame: runs of text, each in its own style, already laid out by the app.
///
/// A string literal is a plain line: `let title: ScreenLine = "Board"`. Build styled lines by
/// appending:
///
/// ```swift
/// var line = ScreenLine("> ", style: .dim)
/// line.append("Write the docs", style: [.bold])
/// let selected = line.padded(toWidth: size.columns, style: .inverse)
/// ```
///
/// ``ScreenRenderer`` cuts a line that is too wide at the screen's edge and erases the rest of
/// a line that is too short.
public struct ScreenLine: Hashable, Sendable, ExpressibleByStringLiteral {
  /// A run of text in one style.
  public struct Span: Hashable, Sendable {
    /// The text; a control character in it is drawn as U+FFFD.
    public var text: String
    /// How the text looks.
    public var style: TextStyle

    /// Makes a run of text.
    public init(_ text: String, style: TextStyle = []) {
      self.text = text
      self.style = style
    }
  }

  /// The runs of text, left to right.
  public var spans: [Span]

  /// Makes a line of one run of text.
  public init(_ text: String = "", style: TextStyle = []) {
    spans = text.isEmpty ? [] : [Span(text, style: style)]
  }

  /// Makes a line of runs of text.
  public init(spans: [Span]) {
    self.spans = spans
  }

  /// Makes a plain line from a string literal.
  public init(stringLiteral text: String) {
    self.init(text)
  }

  /// The text without its styles.
  public var text: String { spans.map(\.text).joined() }

  /// The columns the line takes, as ``DisplayWidth`` counts them.
  ///
  /// - Complexity: O(*n*), where *n* is the length of the text.
  public var displayWidth: Int { spans.reduce(0) { $0 + DisplayWidth.columns(of: $1.text) } }

  /// Appends a run of text.
  public mutating func append(_ text: String, style: TextStyle = []) {
    guard !text.isEmpty else { return }
    spans.append(Span(text, style: style))
  }

  /// Appends another line's runs.
  public mutating func append(_ line: ScreenLine) {
    spans += line.spans
  }

  /// The line followed by spaces up to `width` columns, and `style` added to every run: how a
  /// highlight (``TextStyle/inverse``) covers the whole width of the screen.
  ///
  /// - Parameters:
  ///   - width: The columns to fill; a line already as wide or wider is not cut.
  ///   - style: Added to the style of every run, the padding included.
  /// - Complexity: O(*n*), where *n* is the length of the text.
  public func padded(toWidth width: Int, style: TextStyle = []) -> ScreenLine {
    var result = ScreenLine(
      spans: spans.map { Span($0.text, style: $0.style.union(style)) })
    let padding = width - displayWidth
    if padding > 0 { result.append(String(repeating: " ", count: padding), style: style) }
    return result
  }

  /// Two lines one after the other.
  public static func + (lhs: ScreenLine, rhs: ScreenLine) -> ScreenLine {
    ScreenLine(spans: lhs.spans + rhs.spans)
  }
}
