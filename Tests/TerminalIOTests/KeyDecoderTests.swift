import Testing

@testable import TerminalIO

/// One row of the decoding table: bytes as a terminal sends them, and the keys they stand for
/// once every pending byte is flushed.
struct KeyCase: Sendable, CustomTestStringConvertible {
  let name: String
  let bytes: [UInt8]
  let keys: [Key]

  init(_ name: String, _ bytes: [UInt8], _ keys: [Key]) {
    self.name = name
    self.bytes = bytes
    self.keys = keys
  }

  init(_ name: String, _ text: String, _ keys: [Key]) {
    self.init(name, Array(text.utf8), keys)
  }

  var testDescription: String { name }
}

private let escape: UInt8 = 0x1B

let keyCases: [KeyCase] = [
  KeyCase("ASCII letter", "a", [.character("a")]),
  KeyCase("space and symbols", " ~[", [.character(" "), .character("~"), .character("[")]),
  KeyCase("two-byte UTF-8", "é", [.character("é")]),
  KeyCase("three-byte UTF-8", "€", [.character("€")]),
  KeyCase("four-byte UTF-8", "😀", [.character("😀")]),
  KeyCase(
    "combining mark arrives on its own", "e\u{301}", [.character("e"), .character("\u{301}")]),
  KeyCase("Enter as CR", [0x0D], [.enter]),
  KeyCase("Enter as LF", [0x0A], [.enter]),
  KeyCase("lone Escape", [escape], [.escape]),
  KeyCase("Escape twice", [escape, escape], [.escape, .escape]),
  KeyCase("Escape then an arrow", [escape] + Array("\u{1B}[A".utf8), [.escape, .up]),
  KeyCase("Backspace as DEL", [0x7F], [.backspace]),
  KeyCase("Backspace as BS", [0x08], [.backspace]),
  KeyCase("Tab", [0x09], [.tab]),
  KeyCase("Shift-Tab", "\u{1B}[Z", [.backTab]),
  KeyCase("arrows, CSI form", "\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D", [.up, .down, .right, .left]),
  KeyCase("arrows, SS3 form", "\u{1B}OA\u{1B}OB\u{1B}OC\u{1B}OD", [.up, .down, .right, .left]),
  KeyCase("arrow with Ctrl modifier", "\u{1B}[1;5A", [.up]),
  KeyCase("Home and End, CSI letters", "\u{1B}[H\u{1B}[F", [.home, .end]),
  KeyCase("Home and End, SS3 form", "\u{1B}OH\u{1B}OF", [.home, .end]),
  KeyCase("Home and End, VT220 form", "\u{1B}[1~\u{1B}[4~", [.home, .end]),
  KeyCase("Home and End, rxvt form", "\u{1B}[7~\u{1B}[8~", [.home, .end]),
  KeyCase("Page Up and Page Down", "\u{1B}[5~\u{1B}[6~", [.pageUp, .pageDown]),
  KeyCase("Insert and Delete", "\u{1B}[2~\u{1B}[3~", [.insert, .delete]),
  KeyCase("Delete with a modifier", "\u{1B}[3;2~", [.delete]),
  KeyCase("F1 to F4, SS3 form", "\u{1B}OP\u{1B}OS", [.function(1), .function(4)]),
  KeyCase("F5 and F12", "\u{1B}[15~\u{1B}[24~", [.function(5), .function(12)]),
  KeyCase("Ctrl-C", [0x03], [.control("c")]),
  KeyCase("Ctrl-D", [0x04], [.control("d")]),
  KeyCase("Ctrl-A and Ctrl-Z", [0x01, 0x1A], [.control("a"), .control("z")]),
  KeyCase("Ctrl-@ and Ctrl-\\", [0x00, 0x1C], [.control("@"), .control("\\")]),
  KeyCase("Alt-x", [escape, UInt8(ascii: "x")], [.alt("x")]),
  KeyCase("Escape and [ alone", [escape, UInt8(ascii: "[")], [.alt("[")]),
  KeyCase("Escape and O alone", [escape, UInt8(ascii: "O")], [.alt("O")]),
  KeyCase("unfinished sequence", "\u{1B}[1;", [.unknown(Array("\u{1B}[1;".utf8))]),
  KeyCase("unknown final byte", "\u{1B}[1q", [.unknown(Array("\u{1B}[1q".utf8))]),
  KeyCase("private parameters", "\u{1B}[?1u", [.unknown(Array("\u{1B}[?1u".utf8))]),
  KeyCase(
    "number too large for a key", "\u{1B}[99999999999999999999999~",
    [.unknown(Array("\u{1B}[99999999999999999999999~".utf8))]),
  KeyCase("unknown tilde number", "\u{1B}[99~", [.unknown(Array("\u{1B}[99~".utf8))]),
  KeyCase(
    "sequence cut by a control byte", [escape, UInt8(ascii: "["), UInt8(ascii: "1"), 0x03],
    [.unknown([escape, UInt8(ascii: "["), UInt8(ascii: "1")]), .control("c")]),
  KeyCase("invalid byte", [0xFF], [.character("\u{FFFD}")]),
  KeyCase("lone continuation byte", [0x80, 0x41], [.character("\u{FFFD}"), .character("A")]),
  KeyCase("lead byte then ASCII", [0xC3, 0x41], [.character("\u{FFFD}"), .character("A")]),
  KeyCase(
    "surrogate is invalid", [0xED, 0xA0, 0x80], Array(repeating: .character("\u{FFFD}"), count: 3)),
  KeyCase("unfinished character at the end", [0xE2, 0x82], [.character("\u{FFFD}")]),
  KeyCase(
    "a line of typing", "hé\u{1B}[Dx\r",
    [.character("h"), .character("é"), .left, .character("x"), .enter]),
  KeyCase(
    "a bracketed paste, line ends kept", "\u{1B}[200~hi\r\nthere\u{1B}[201~x",
    [.paste("hi\r\nthere"), .character("x")]),
  KeyCase(
    "a paste holding escape sequences and a partial end marker",
    "\u{1B}[200~\u{1B}[A\u{1B}[20\u{1B}[201\u{1B}[201~", [.paste("\u{1B}[A\u{1B}[20\u{1B}[201")]),
  KeyCase("an empty paste", "\u{1B}[200~\u{1B}[201~\u{1B}[B", [.paste(""), .down]),
  KeyCase("a paste of UTF-8", "\u{1B}[200~é😀\u{1B}[201~", [.paste("é😀")]),
]

@Suite struct KeyDecoderTests {
  @Test(arguments: keyCases)
  func decodesEverySequence(_ keyCase: KeyCase) {
    var decoder = KeyDecoder()
    let keys = decoder.decode(keyCase.bytes) + decoder.flush()
    #expect(keys == keyCase.keys)
    #expect(!decoder.hasPendingBytes)
  }

  @Test(arguments: keyCases)
  func decodesTheSameKeysWhereverTheInputIsSplit(_ keyCase: KeyCase) {
    for split in 0...keyCase.bytes.count {
      var decoder = KeyDecoder()
      let keys =
        decoder.decode(keyCase.bytes[..<split]) + decoder.decode(keyCase.bytes[split...])
        + decoder.flush()
      #expect(keys == keyCase.keys, "split at \(split)")
    }
    var decoder = KeyDecoder()
    var keys = keyCase.bytes.flatMap { decoder.decode([$0]) }
    keys += decoder.flush()
    #expect(keys == keyCase.keys, "one byte at a time")
  }

  @Test func loneEscapeWaitsForAFlush() {
    var decoder = KeyDecoder()
    #expect(decoder.decode([escape]) == [])
    #expect(decoder.hasPendingBytes)
    #expect(decoder.flush() == [.escape])
    #expect(!decoder.hasPendingBytes)
    #expect(decoder.flush() == [])
  }

  @Test func escapeAtTheEndOfAChunkJoinsTheNextChunk() {
    var decoder = KeyDecoder()
    #expect(decoder.decode(Array("a\u{1B}".utf8)) == [.character("a")])
    #expect(decoder.decode(Array("[".utf8)) == [])
    #expect(decoder.decode(Array("Bb".utf8)) == [.down, .character("b")])
    #expect(!decoder.hasPendingBytes)
  }

  @Test func multiByteCharacterSplitAcrossChunks() {
    var decoder = KeyDecoder()
    #expect(decoder.decode([0xF0, 0x9F]) == [])
    #expect(decoder.hasPendingBytes)
    #expect(decoder.decode([0x98]) == [])
    #expect(decoder.decode([0x80, 0x21]) == [.character("😀"), .character("!")])
  }

  @Test func overlongSequenceIsGivenUpWithoutAFlush() {
    var decoder = KeyDecoder()
    let digits = [UInt8](repeating: UInt8(ascii: "1"), count: 40)
    let keys = decoder.decode([escape, UInt8(ascii: "[")] + digits)
    let expectedLength = KeyDecoder.maximumSequenceLength
    #expect(
      keys.first == .unknown([escape, UInt8(ascii: "[")] + digits.prefix(expectedLength - 2)))
    #expect(keys.dropFirst().allSatisfy { $0 == .character("1") })
  }

  @Test func everyPairOfBytesDecodesTheSameWholeOrSplit() {
    for first in UInt8.min...UInt8.max {
      for second in UInt8.min...UInt8.max {
        var whole = KeyDecoder()
        let together = whole.decode([first, second]) + whole.flush()
        var split = KeyDecoder()
        let apart = split.decode([first]) + split.decode([second]) + split.flush()
        guard together == apart else {
          Issue.record("\(first) \(second): \(together) != \(apart)")
          return
        }
      }
    }
  }

  @Test func arbitraryInputDecodesTheSameInAnyChunks() {
    // NB: a fixed-seed generator keeps the inputs the same on every run; the alphabet is the
    // bytes that start, continue or break sequences.
    var generator = SplitMix64(seed: 0x5EED)
    let alphabet: [UInt8] = [
      0x1B, 0x1B, 0x5B, 0x4F, 0x31, 0x3B, 0x7E, 0x41, 0x48, 0x3F, 0x03,
      0x0D, 0x7F, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0xFF, 0x61,
    ]
    for _ in 0..<2_000 {
      let length = Int(generator.next() % 40)
      let bytes = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
      var whole = KeyDecoder()
      let expected = whole.decode(bytes) + whole.flush()
      var chunked = KeyDecoder()
      var keys: [Key] = []
      var start = 0
      while start < bytes.count {
        let end = min(bytes.count, start + 1 + Int(generator.next() % 5))
        keys += chunked.decode(bytes[start..<end])
        start = end
      }
      keys += chunked.flush()
      guard keys == expected else {
        Issue.record("\(bytes): \(keys) != \(expected)")
        return
      }
    }
  }

  @Test func aLongPasteInManyReadsIsOneKey() {
    let text = String(repeating: "a long pasted line é\n", count: 5_000)
    let bytes = Array("\u{1B}[200~\(text)\u{1B}[201~!".utf8)
    var decoder = KeyDecoder()
    var keys: [Key] = []
    var start = 0
    while start < bytes.count {
      let end = min(start + 4_093, bytes.count)
      keys += decoder.decode(bytes[start..<end])
      start = end
    }
    #expect(keys == [.paste(text), .character("!")])
    #expect(!decoder.hasPendingBytes)
  }

  @Test func aPasteThatPausesIsDeliveredAsFarAsItCameAndGoesOn() {
    var decoder = KeyDecoder()
    #expect(decoder.decode(Array("\u{1B}[200~first".utf8)) == [])
    #expect(decoder.hasPendingBytes)
    #expect(decoder.flush() == [.paste("first")])
    #expect(!decoder.hasPendingBytes)
    // NB: still inside the paste: a line end or an arrow's bytes are text until its end.
    #expect(decoder.decode(Array("\r\u{1B}[A".utf8)) == [])
    #expect(decoder.decode(Array("\u{1B}[201~\r".utf8)) == [.paste("\r\u{1B}[A"), .enter])
  }

  @Test func namedControlKeys() {
    #expect(Key.interrupt == .control("c"))
    #expect(Key.endOfInput == .control("d"))
  }
}

/// SplitMix64: a tiny deterministic generator for reproducible test inputs.
struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}
