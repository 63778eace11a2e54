import Testing

@testable import TerminalIO

@Suite struct LineDecoderTests {
  @Test func splitsAtLineFeeds() {
    var decoder = LineDecoder()
    #expect(decoder.decode(Array("one\ntwo\n\nthree".utf8)) == ["one", "two", ""])
    #expect(decoder.hasPartialLine)
    #expect(decoder.finish() == ["three"])
    #expect(!decoder.hasPartialLine)
    #expect(decoder.finish() == [])
  }

  @Test func dropsTheCarriageReturnOfCRLF() {
    var decoder = LineDecoder()
    #expect(decoder.decode(Array("one\r\ntwo\r".utf8)) == ["one"])
    #expect(decoder.decode(Array("\n".utf8)) == ["two"])
    #expect(decoder.decode(Array("a\rb\n".utf8)) == ["a\rb"])
  }

  @Test func replacesInvalidUTF8() {
    var decoder = LineDecoder()
    #expect(decoder.decode([0x61, 0xFF, 0x62, 0xC3, 0x0A]) == ["a\u{FFFD}b\u{FFFD}"])
  }

  @Test func joinsACharacterSplitAcrossChunks() {
    var decoder = LineDecoder()
    let bytes = Array("héllo wörld\n".utf8)
    var lines: [String] = []
    for byte in bytes { lines += decoder.decode([byte]) }
    #expect(lines == ["héllo wörld"])
  }

  @Test func emptyInputHasNoLines() {
    var decoder = LineDecoder()
    #expect(decoder.decode([]) == [])
    #expect(decoder.finish() == [])
  }
}
