import Testing

@testable import TerminalIO

@Suite struct DisplayWidthTests {
  @Test(
    arguments: [
      ("a", 1), ("é", 1), ("e\u{301}", 1), ("日", 2), ("한", 2), ("Ａ", 2), ("ｱ", 1), ("😀", 2),
      ("❤", 1), ("❤️", 2), ("🇫🇷", 2), ("👨‍👩‍👧", 2), ("\u{200B}", 0), ("\u{301}", 0), ("\t", 1),
    ] as [(Character, Int)])
  func countsColumnsPerCharacter(_ character: Character, _ columns: Int) {
    #expect(DisplayWidth.columns(of: character) == columns)
  }

  @Test func countsColumnsOfAString() {
    #expect(DisplayWidth.columns(of: "héllo 日本 😀") == 13)
    #expect(DisplayWidth.columns(of: "") == 0)
  }

  @Test func prefixNeverSplitsACharacter() {
    #expect(DisplayWidth.prefix(of: "日本語", fittingIn: 5) == "日本")
    #expect(DisplayWidth.prefix(of: "日本語", fittingIn: 1) == "")
    #expect(DisplayWidth.prefix(of: "ae\u{301}b", fittingIn: 2) == "ae\u{301}")
    #expect(DisplayWidth.prefix(of: "abc", fittingIn: 10) == "abc")
    #expect(DisplayWidth.prefix(of: "abc", fittingIn: 0) == "")
  }

  @Test func suffixNeverSplitsACharacter() {
    #expect(DisplayWidth.suffix(of: "日本語", fittingIn: 5) == "本語")
    #expect(DisplayWidth.suffix(of: "日本語", fittingIn: 1) == "")
    #expect(DisplayWidth.suffix(of: "bae\u{301}", fittingIn: 2) == "ae\u{301}")
    #expect(DisplayWidth.suffix(of: "abc", fittingIn: 10) == "abc")
    #expect(DisplayWidth.suffix(of: "abc", fittingIn: 0) == "")
  }

  @Test func wrapBreaksAfterSpacesAndInsideWordsTooLongForALine() {
    #expect(DisplayWidth.wrap("the quick brown fox", toWidth: 10) == ["the quick", "brown fox"])
    #expect(DisplayWidth.wrap("abcdefghij klm", toWidth: 4) == ["abcd", "efgh", "ij", "klm"])
    #expect(DisplayWidth.wrap("日本語です", toWidth: 5) == ["日本", "語で", "す"])
    #expect(DisplayWidth.wrap("日本", toWidth: 1) == ["日", "本"])
    #expect(DisplayWidth.wrap("", toWidth: 10) == [])
    #expect(DisplayWidth.wrap("a b c d e f", toWidth: 3, limit: 2) == ["a b", "c d"])
    let long = String(repeating: "word ", count: 20_000)
    #expect(DisplayWidth.wrap(long, toWidth: 80, limit: 3).count == 3)
  }

  @Test func fitCutsOrPadsToTheWidth() {
    #expect(DisplayWidth.fit("日本語", toWidth: 5) == "日本 ")
    #expect(DisplayWidth.fit("ab", toWidth: 4) == "ab  ")
    #expect(DisplayWidth.fit("abcdef", toWidth: 3) == "abc")
  }

  @Test func everyCharacterOfAnyScalarHasAWidthOfAtMostTwo() {
    for value in UInt32(0)...0x2FFFF {
      guard let scalar = Unicode.Scalar(value) else { continue }
      let columns = DisplayWidth.columns(of: Character(scalar))
      guard (0...2).contains(columns) else {
        Issue.record("U+\(String(value, radix: 16)) takes \(columns) columns")
        return
      }
    }
  }
}
