/// Turns the bytes a terminal sends in raw mode into ``Key``s: pure, synchronous, and fed in
/// chunks of any size.
///
/// Feed every chunk you read to ``decode(_:)``; it returns the keys the chunk completes and keeps
/// the bytes of a sequence that has not finished yet (an escape sequence or a multi-byte
/// character split between two reads) for the next call.
///
/// ## A lone Escape
///
/// The Escape key sends the byte ESC, which also starts every arrow and function key sequence,
/// so an ESC at the end of a chunk is ambiguous: the rest of a sequence may still be on its way.
/// The decoder never guesses. It holds the ESC (``hasPendingBytes`` is `true`) until either more
/// bytes arrive, which settle it, or the caller calls ``flush()``, which settles everything
/// pending as typed: a lone ESC becomes ``Key/escape``. ``LineReader/keys`` calls ``flush()``
/// when no byte has followed for its escape timeout (50 ms by default, far longer than a
/// terminal takes to send one sequence, even over SSH, and far shorter than a person takes to
/// press another key) and at the end of the input. A timeout rather than "an ESC at the end of a
/// read is an Escape" because a slow link may split a sequence between two reads, and an arrow
/// read as Escape followed by `[` and `A` would act as three keys.
///
/// ```swift
/// var decoder = KeyDecoder()
/// decoder.decode([0x1B, 0x5B])  // [], ESC [ waits for its final byte
/// decoder.decode([0x41, 0x1B])  // [.up], the new ESC waits
/// decoder.flush()  // [.escape]
/// ```
public struct KeyDecoder: Hashable, Sendable {
  /// The bytes of a sequence that has started but not finished.
  private var pending: [UInt8] = []
  /// The bytes of a bracketed paste read so far, while one is under way.
  private var pasted: [UInt8]?

  /// A CSI sequence longer than this is given up on as ``Key/unknown(_:)``, so garbage after an
  /// ESC cannot grow the pending buffer forever.
  static let maximumSequenceLength = 32

  /// Makes a decoder with nothing pending.
  public init() {}

  /// Whether the decoder holds the start of a sequence: an ESC, an unfinished escape sequence,
  /// or the first bytes of a multi-byte character.
  ///
  /// While this is `true`, call ``flush()`` once no more bytes arrive within a short timeout.
  public var hasPendingBytes: Bool { !pending.isEmpty || !(pasted?.isEmpty ?? true) }

  /// Decodes the next chunk of input.
  ///
  /// - Parameter bytes: The bytes as read; a chunk may end in the middle of a key.
  /// - Returns: The keys completed by this chunk, in order. The bytes of an unfinished key stay
  ///   pending.
  /// - Complexity: O(*n*), where *n* is the number of bytes in `bytes` plus those pending.
  public mutating func decode(_ bytes: some Sequence<UInt8>) -> [Key] {
    pending.append(contentsOf: bytes)
    return drain(atEndOfInput: false)
  }

  /// Settles every pending byte as typed: a lone ESC becomes ``Key/escape``, ESC `[` becomes
  /// Alt-`[`, an unfinished escape sequence ``Key/unknown(_:)``, and the first bytes of an
  /// unfinished character U+FFFD. A paste whose end has not come yet is delivered as far as it
  /// has come, and what follows until its end is another ``Key/paste(_:)``.
  ///
  /// Call it when no byte has followed the pending ones within a short timeout, and at the end
  /// of the input.
  ///
  /// - Returns: The keys the pending bytes stand for; afterwards nothing is pending.
  /// - Complexity: O(*n*), where *n* is the number of pending bytes (at most a few).
  public mutating func flush() -> [Key] {
    drain(atEndOfInput: true)
  }

  private mutating func drain(atEndOfInput: Bool) -> [Key] {
    var keys: [Key] = []
    var start = pending.startIndex
    decoding: while start < pending.endIndex {
      if pasted != nil {
        start = readPaste(from: start, atEndOfInput: atEndOfInput, into: &keys)
        if pasted != nil { break decoding }
        continue
      }
      switch Self.parse(pending[start...], atEndOfInput: atEndOfInput) {
      case .key(.unknown(let bytes), let length) where bytes.elementsEqual(Self.pasteStart):
        pasted = []
        start += length
      case .key(let key, let length):
        keys.append(key)
        start += length
      case .needsMoreBytes:
        break decoding
      }
    }
    pending.removeSubrange(..<start)
    if atEndOfInput, let text = pasted, !text.isEmpty {
      keys.append(.paste(String(decoding: text, as: UTF8.self)))
      pasted = []
    }
    return keys
  }
}

// MARK: - Bracketed paste

extension KeyDecoder {
  /// What a terminal sends before and after pasted text, once bracketed paste is on.
  static let pasteStart = Array("\u{1B}[200~".utf8)
  static let pasteEnd = Array("\u{1B}[201~".utf8)

  /// Moves the pasted bytes from `start` on into ``pasted``, up to the end of the paste (then
  /// delivered as one key) or of the input read; each byte is looked at once, so a paste costs
  /// time linear in its length however it is split into reads.
  ///
  /// - Returns: Where the bytes not yet taken start: after the paste's end, or at the last bytes
  ///   that may begin its end marker.
  private mutating func readPaste(from start: Int, atEndOfInput: Bool, into keys: inout [Key])
    -> Int
  {
    let end = Self.pasteEnd
    var index = start
    while index < pending.endIndex {
      guard pending[index] == end[0] else {
        index += 1
        continue
      }
      let available = min(end.count, pending.endIndex - index)
      guard pending[index..<(index + available)].elementsEqual(end.prefix(available)) else {
        index += 1
        continue
      }
      pasted?.append(contentsOf: pending[start..<index])
      guard available == end.count else {
        // NB: the end marker may be split between two reads: its first bytes wait.
        if atEndOfInput { pasted?.append(contentsOf: pending[index...]) }
        return atEndOfInput ? pending.endIndex : index
      }
      keys.append(.paste(String(decoding: pasted ?? [], as: UTF8.self)))
      pasted = nil
      return index + end.count
    }
    pasted?.append(contentsOf: pending[start...])
    return pending.endIndex
  }
}

// MARK: - Parsing

extension KeyDecoder {
  /// What the bytes at the start of the input stand for.
  enum Parse: Equatable {
    /// A key made of the first `length` bytes.
    case key(Key, length: Int)
    /// The bytes start a key that needs more of them.
    case needsMoreBytes
  }

  private static let escapeByte: UInt8 = 0x1B

  /// Parses the key at the start of `bytes`, which is never empty.
  ///
  /// - Parameter atEndOfInput: Whether no more bytes will come (a flush): an unfinished key is
  ///   then settled instead of waiting.
  static func parse(_ bytes: ArraySlice<UInt8>, atEndOfInput: Bool) -> Parse {
    let first = bytes[bytes.startIndex]
    switch first {
    case escapeByte:
      return parseEscape(bytes, atEndOfInput: atEndOfInput)
    case 0x0D, 0x0A:
      return .key(.enter, length: 1)
    case 0x09:
      return .key(.tab, length: 1)
    case 0x08, 0x7F:
      return .key(.backspace, length: 1)
    case 0x00...0x1F:
      return .key(.control(controlName(first)), length: 1)
    case 0x20...0x7E:
      return .key(.character(Character(Unicode.Scalar(first))), length: 1)
    default:
      return parseUTF8(bytes, atEndOfInput: atEndOfInput)
    }
  }

  /// The name of a control byte: its letter in lowercase for Ctrl-A to Ctrl-Z, its symbol for
  /// the others (Ctrl-@ is NUL, Ctrl-\\ to Ctrl-_ are 0x1C to 0x1F).
  private static func controlName(_ byte: UInt8) -> Character {
    let symbol = Unicode.Scalar(byte + 0x40)
    return Character(symbol.properties.lowercaseMapping)
  }

  private static func parseEscape(_ bytes: ArraySlice<UInt8>, atEndOfInput: Bool) -> Parse {
    let start = bytes.startIndex
    guard bytes.count > 1 else {
      return atEndOfInput ? .key(.escape, length: 1) : .needsMoreBytes
    }
    let second = bytes[start + 1]
    switch second {
    case UInt8(ascii: "["):
      return parseControlSequence(bytes, atEndOfInput: atEndOfInput)
    case UInt8(ascii: "O"):
      guard bytes.count > 2 else {
        return atEndOfInput ? .key(.alt("O"), length: 2) : .needsMoreBytes
      }
      let final = bytes[start + 2]
      guard (0x40...0x7E).contains(final) else { return .key(.alt("O"), length: 2) }
      return .key(singleShiftKey(final) ?? .unknown(Array(bytes.prefix(3))), length: 3)
    case 0x20...0x7E:
      return .key(.alt(Character(Unicode.Scalar(second))), length: 2)
    default:
      // NB: ESC before another ESC, a control byte or a non-ASCII byte is Escape pressed on its
      // own; the byte after it starts the next key.
      return .key(.escape, length: 1)
    }
  }

  /// Parses `ESC [ parameters intermediates final`, whose bytes after `ESC [` are parameters
  /// (0x30 to 0x3F) and intermediates (0x20 to 0x2F) and whose final byte is 0x40 to 0x7E.
  private static func parseControlSequence(_ bytes: ArraySlice<UInt8>, atEndOfInput: Bool)
    -> Parse
  {
    let start = bytes.startIndex
    var index = start + 2
    while index < bytes.endIndex {
      let byte = bytes[index]
      let length = index - start + 1
      switch byte {
      case 0x20...0x3F:
        guard length < maximumSequenceLength else {
          return .key(.unknown(Array(bytes[start...index])), length: length)
        }
        index += 1
      case 0x40...0x7E:
        let parameters = bytes[(start + 2)..<index]
        let key = controlSequenceKey(parameters: parameters, final: byte)
        return .key(key ?? .unknown(Array(bytes[start...index])), length: length)
      default:
        // NB: a byte that cannot be part of the sequence ends it unfinished; that byte starts
        // the next key.
        return .key(.unknown(Array(bytes[start..<index])), length: index - start)
      }
    }
    guard atEndOfInput else { return .needsMoreBytes }
    if bytes.count == 2 { return .key(.alt("["), length: 2) }
    return .key(.unknown(Array(bytes)), length: bytes.count)
  }

  /// The key of `ESC O final` (SS3), which terminals send for the arrows, Home, End and F1 to
  /// F4 in application cursor mode.
  private static func singleShiftKey(_ final: UInt8) -> Key? {
    switch final {
    case UInt8(ascii: "A"): .up
    case UInt8(ascii: "B"): .down
    case UInt8(ascii: "C"): .right
    case UInt8(ascii: "D"): .left
    case UInt8(ascii: "H"): .home
    case UInt8(ascii: "F"): .end
    case UInt8(ascii: "P"): .function(1)
    case UInt8(ascii: "Q"): .function(2)
    case UInt8(ascii: "R"): .function(3)
    case UInt8(ascii: "S"): .function(4)
    default: nil
    }
  }

  /// The key of a complete CSI sequence, or `nil` when it is not a key this decoder knows.
  private static func controlSequenceKey(parameters: ArraySlice<UInt8>, final: UInt8) -> Key? {
    // NB: only digits and `;` are key parameters; `?`, `<`, `=` or `>` mark replies and mouse
    // reports, which are not keys.
    guard parameters.allSatisfy({ $0 == UInt8(ascii: ";") || (0x30...0x39).contains($0) })
    else { return nil }
    let firstParameter = leadingNumber(of: parameters)
    switch final {
    case UInt8(ascii: "A"): return .up
    case UInt8(ascii: "B"): return .down
    case UInt8(ascii: "C"): return .right
    case UInt8(ascii: "D"): return .left
    case UInt8(ascii: "H"): return .home
    case UInt8(ascii: "F"): return .end
    case UInt8(ascii: "Z"): return .backTab
    case UInt8(ascii: "P"): return .function(1)
    case UInt8(ascii: "Q"): return .function(2)
    case UInt8(ascii: "R"): return .function(3)
    case UInt8(ascii: "S"): return .function(4)
    case UInt8(ascii: "~"):
      guard let firstParameter else { return nil }
      return tildeKey(firstParameter)
    default: return nil
    }
  }

  /// The number before the first `;` of `parameters`, or `nil` when it is empty; a number too
  /// large for a key saturates rather than overflows.
  private static func leadingNumber(of parameters: ArraySlice<UInt8>) -> Int? {
    let digits = parameters.prefix { $0 != UInt8(ascii: ";") }
    guard !digits.isEmpty else { return nil }
    return digits.reduce(0) { number, digit in min(number * 10 + Int(digit - 0x30), 100_000) }
  }

  /// The key of `ESC [ number ~` (VT220 editing and function keys).
  private static func tildeKey(_ number: Int) -> Key? {
    switch number {
    case 1, 7: .home
    case 2: .insert
    case 3: .delete
    case 4, 8: .end
    case 5: .pageUp
    case 6: .pageDown
    case 11...15: .function(number - 10)
    case 17...21: .function(number - 11)
    case 23, 24: .function(number - 12)
    default: nil
    }
  }
}

// MARK: - UTF-8

extension KeyDecoder {
  private static let replacement = Key.character("\u{FFFD}")

  /// Parses one UTF-8 encoded scalar whose lead byte is 0x80 or above.
  ///
  /// Invalid input becomes U+FFFD, one for each maximal invalid subpart as Unicode recommends
  /// (the same as `String(decoding:as:)`), and never stops the decoding.
  private static func parseUTF8(_ bytes: ArraySlice<UInt8>, atEndOfInput: Bool) -> Parse {
    let start = bytes.startIndex
    let lead = bytes[start]
    let length: Int
    var secondRange: ClosedRange<UInt8> = 0x80...0xBF
    switch lead {
    case 0xC2...0xDF: length = 2
    case 0xE0:
      length = 3
      secondRange = 0xA0...0xBF
    case 0xE1...0xEC, 0xEE...0xEF: length = 3
    case 0xED:
      length = 3
      secondRange = 0x80...0x9F
    case 0xF0:
      length = 4
      secondRange = 0x90...0xBF
    case 0xF1...0xF3: length = 4
    case 0xF4:
      length = 4
      secondRange = 0x80...0x8F
    default:
      return .key(replacement, length: 1)
    }
    var scalarValue = UInt32(lead) & (0xFF >> (length + 1))
    for offset in 1..<length {
      guard start + offset < bytes.endIndex else {
        return atEndOfInput ? .key(replacement, length: offset) : .needsMoreBytes
      }
      let byte = bytes[start + offset]
      let validRange = offset == 1 ? secondRange : 0x80...0xBF
      guard validRange.contains(byte) else { return .key(replacement, length: offset) }
      scalarValue = scalarValue << 6 | UInt32(byte & 0x3F)
    }
    guard let scalar = Unicode.Scalar(scalarValue) else { return .key(replacement, length: length) }
    return .key(.character(Character(scalar)), length: length)
  }
}
