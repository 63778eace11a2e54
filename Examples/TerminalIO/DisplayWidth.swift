/// How many terminal columns text takes, and how to cut or pad it to a width without splitting
/// a character.
///
/// The count is per character (grapheme cluster), from its first scalar:
/// - combining marks, zero-width joiners and other format characters take no column of their
///   own (`"e\u{301}"` is 1 column);
/// - East Asian wide and fullwidth characters (CJK, kana, Hangul) and emoji shown as emoji
///   take 2;
/// - a control character (a tab, an ESC, a line end) counts 1, because ``ScreenRenderer``
///   draws it as U+FFFD rather than let it move the cursor;
/// - everything else takes 1.
///
/// Terminals disagree on some emoji sequences (a family of four joined by ZWJs may take 2 or 8
/// columns); this follows the common modern choice of 2.
public enum DisplayWidth {
  /// The columns a character takes: 0, 1 or 2.
  public static func columns(of character: Character) -> Int {
    // NB: most text is printable ASCII, whose Unicode properties cost a table lookup each.
    if let ascii = character.asciiValue, ascii >= 0x20, ascii < 0x7F { return 1 }
    guard let first = character.unicodeScalars.first else { return 0 }
    let width = columns(of: first)
    // NB: VS16 (U+FE0F) asks for the emoji presentation of a character drawn as text
    // otherwise: "❤️" takes 2 columns where "❤" takes 1.
    if width == 1, first.properties.isEmoji, character.unicodeScalars.contains("\u{FE0F}") {
      return 2
    }
    if width == 0 {
      // NB: a cluster that starts with a zero-width scalar (a lone combining mark) takes the
      // widest of its scalars, which is 0 when all of them are marks.
      return character.unicodeScalars.map(columns(of:)).max() ?? 0
    }
    return width
  }

  /// The columns a string takes.
  ///
  /// - Complexity: O(*n*), where *n* is the length of `text`.
  public static func columns(of text: some StringProtocol) -> Int {
    text.reduce(0) { $0 + columns(of: $1) }
  }

  /// The longest prefix of `text` that fits in `width` columns, never splitting a character: a
  /// wide character that would straddle the edge is left out.
  ///
  /// - Complexity: O(*n*), where *n* is the length of the prefix.
  public static func prefix<Text: StringProtocol>(of text: Text, fittingIn width: Int)
    -> Text.SubSequence
  {
    var used = 0
    var end = text.startIndex
    for index in text.indices {
      let next = used + columns(of: text[index])
      if next > width { break }
      used = next
      end = text.index(after: index)
    }
    return text[..<end]
  }

  /// The longest suffix of `text` that fits in `width` columns, never splitting a character:
  /// what a field shows when the cursor is at the end of a text too long for it.
  ///
  /// - Complexity: O(*n*), where *n* is the length of the suffix.
  public static func suffix(of text: String, fittingIn width: Int) -> Substring {
    var used = 0
    var start = text.endIndex
    while start > text.startIndex {
      let previous = text.index(before: start)
      let next = used + columns(of: text[previous])
      if next > width { break }
      used = next
      start = previous
    }
    return text[start...]
  }

  /// `text` broken into lines of at most `width` columns: after a space where a line has one,
  /// inside a word longer than a line where it must. The space a line is broken at is dropped.
  ///
  /// - Parameters:
  ///   - text: One paragraph (a line end in it is drawn, not followed).
  ///   - width: The columns of a line; a character wider than that gets a line of its own.
  ///   - limit: The most lines returned: the rest of the text is not looked at.
  /// - Complexity: O(*n*), where *n* is the length of the text returned.
  public static func wrap(_ text: String, toWidth width: Int, limit: Int = .max) -> [Substring] {
    var lines: [Substring] = []
    var rest = text[...]
    while !rest.isEmpty, lines.count < limit {
      let fitting = prefix(of: rest, fittingIn: width)
      var end = fitting.endIndex
      if end == rest.startIndex {
        end = rest.index(after: end)
      } else if end < rest.endIndex, rest[end] != " ",
        let space = fitting.lastIndex(of: " "), space > fitting.startIndex
      {
        end = space
      }
      lines.append(rest[..<end])
      rest = rest[end...]
      if rest.first == " " { rest = rest.dropFirst() }
    }
    return lines
  }

  /// `text` cut or padded with spaces to exactly `width` columns.
  ///
  /// A wide character cut at the edge leaves one space in its place.
  ///
  /// - Complexity: O(*n*), where *n* is `width` plus the length of `text`.
  public static func fit(_ text: String, toWidth width: Int) -> String {
    let kept = prefix(of: text, fittingIn: width)
    let padding = max(0, width - columns(of: kept))
    return String(kept) + String(repeating: " ", count: padding)
  }

  /// The columns a scalar takes on its own: 0, 1 or 2.
  static func columns(of scalar: Unicode.Scalar) -> Int {
    let value = scalar.value
    if value < 0x20 || (0x7F..<0xA0).contains(value) { return 1 }
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    default: break
    }
    // NB: Hangul medial vowels and final consonants join the syllable before them.
    if (0x1160...0x11FF).contains(value) { return 0 }
    if scalar.properties.isEmojiPresentation { return 2 }
    return wideRanges.contains { $0.contains(value) } ? 2 : 1
  }

  /// East Asian Wide and Fullwidth blocks (UAX #11), the ones text actually uses; wide emoji
  /// are found by their emoji presentation property instead.
  private static let wideRanges: [ClosedRange<UInt32>] = [
    0x1100...0x115F,  // Hangul Jamo initial consonants
    0x2E80...0x303E,  // CJK radicals, Kangxi, ideographic description, CJK symbols
    0x3041...0x33FF,  // kana, Bopomofo, Hangul compatibility jamo, CJK compatibility
    0x3400...0x4DBF,  // CJK extension A
    0x4E00...0x9FFF,  // CJK unified ideographs
    0xA000...0xA4CF,  // Yi
    0xA960...0xA97F,  // Hangul Jamo extended A
    0xAC00...0xD7A3,  // Hangul syllables
    0xF900...0xFAFF,  // CJK compatibility ideographs
    0xFE10...0xFE19,  // vertical forms
    0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
    0xFF00...0xFF60,  // fullwidth forms
    0xFFE0...0xFFE6,  // fullwidth signs
    0x20000...0x2FFFD,  // CJK extensions B to F
    0x30000...0x3FFFD,  // CJK extension G and up
  ]
}
