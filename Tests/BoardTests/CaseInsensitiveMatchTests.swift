import Testing

@testable import BoardCore

/// Search's text comparison: what `lowercased().contains` found, found faster.
@Suite struct CaseInsensitiveMatchTests {
  @Test(arguments: [
    ("release", "Ship the RELEASE notes", true),
    ("release", "Ship the RELEAS", false),
    ("e notes", "Ship the RELEASE Notes", true),
    ("ship", "ship", true),
    ("ship", "shi", false),
    ("café", "Le CAFÉ du coin", true),
    ("é", "É", true),
    // NB: non-ASCII text is lowercased as before: the Kelvin sign lowercases to an ASCII k.
    ("k", "\u{212A}elvin", true),
    ("kelvin", "Ünits: \u{212A}ELVIN", true),
    ("zz", "Ünits", false),
    ("", "anything", true),
  ])
  func findsWhatLowercasingFinds(needle: String, text: String, expected: Bool) {
    #expect(CaseInsensitiveMatch(needle).isFound(in: text) == expected)
    #expect(text.lowercased().contains(needle) == expected)
  }
}
