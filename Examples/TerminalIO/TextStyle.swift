/// How text looks: the few ANSI styles every terminal renders.
///
/// Combine them as an option set: `[.bold, .inverse]`.
public struct TextStyle: OptionSet, Hashable, Sendable {
  /// The raw SGR flags.
  public let rawValue: UInt8

  /// Makes a style from its raw flags.
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Bold, or bright on some terminals (SGR 1).
  public static let bold = TextStyle(rawValue: 1 << 0)
  /// Dim, faint (SGR 2): hints, disabled items.
  public static let dim = TextStyle(rawValue: 1 << 1)
  /// Italic (SGR 3); some terminals show it inverse or not at all.
  public static let italic = TextStyle(rawValue: 1 << 2)
  /// Underlined (SGR 4).
  public static let underline = TextStyle(rawValue: 1 << 3)
  /// Foreground and background swapped (SGR 7): the usual selection highlight.
  public static let inverse = TextStyle(rawValue: 1 << 4)
}
