import Foundation
import ReduxCoreTesting
import ReduxKit
import TerminalIO
import Testing

@testable import BoardCore

/// A long column as a person walks it: paging keys, the selection kept in view, a moved card
/// still selected; and a long session that costs no more per key than a short one.
extension FullScreenTests {
  /// Adds `count` cards to Todo without keys (the keys are what the tests look at).
  func addCards(_ count: Int) async {
    for number in 1...count {
      await session.run(.add(column: "Todo", title: "Card \(number)"), waitsForSave: false)
    }
  }

  var selectedRow: Int { navigation.root.state.row }

  /// The highlighted card's line as the frame draws it, found by its style.
  func highlighted(_ size: TerminalSize = TerminalSize(columns: 100, rows: 20)) -> String? {
    let frame = BoardFrame.frame(
      of: navigation.top, root: navigation.root.state, session: session, size: size)
    return frame.lines.dropFirst().lazy.compactMap { line in
      line.spans.first { $0.style.contains(.inverse) }.map {
        $0.text.trimmingCharacters(in: .whitespaces)
      }
    }.first
  }

  @Test func pagingKeysWalkALongColumnAndTheSelectionStaysInView() async throws {
    await addCards(40)
    navigation.resized(to: TerminalSize(columns: 100, rows: 20))
    let page = BoardBody.pageRows(at: TerminalSize(columns: 100, rows: 20))
    #expect(page == 14)
    await press(.home)
    #expect(selectedRow == 0)
    #expect(highlighted() == "#1 Card 1")
    #expect(screen()[17].trimmingCharacters(in: .whitespaces).hasPrefix("↓ 26 more"))

    await press(.pageDown)
    #expect(selectedRow == 14)
    #expect(highlighted() == "#15 Card 15")
    #expect(screen().contains { $0.contains("↑ 1 above  ↓ 25 more") })
    await press(.pageDown, .pageDown, .pageDown)
    #expect(selectedRow == 39)
    #expect(highlighted() == "#40 Card 40")
    #expect(screen().contains { $0.contains("↑ 26 above") })
    await press(.pageUp)
    #expect(selectedRow == 25)
    await press(.character("g"))
    #expect(highlighted() == "#1 Card 1")
    await press(.character("G"))
    #expect(highlighted() == "#40 Card 40")
    await press(.home, .end)
    #expect(selectedRow == 39)

    // NB: the card on the column's last visible line is drawn, not hidden by the count.
    await press(.home)
    for _ in 0..<13 { await press(.down) }
    #expect(highlighted() == "#14 Card 14")
    await press(.down)
    #expect(highlighted() == "#15 Card 15")
  }

  @Test func aMovedCardStaysSelectedInItsNewColumn() async throws {
    await addCards(3)
    await press(.home, .down, .character("m"), .character("2"))
    #expect(session.board.cards[2]?.columnID == 2)
    #expect(navigation.root.state.column == 1)
    #expect(highlighted() == "#2 Card 2")
    await press(.character("m"), .character("1"))
    #expect(navigation.root.state.column == 0)
    #expect(highlighted() == "#2 Card 2")
  }

  @Test func aLongSessionDrawsAboutOneFramePerKey() async throws {
    // NB: a frame's observation used to stay registered until a later change fired it, and
    // each fired one drew a frame that registered again: every key typed added one frame to
    // draw for each later key (300 keys drew ~45,000 frames; a paste left the board slow).
    let (events, input) = AsyncStream.makeStream(of: TerminalEvent.self)
    // NB: digits, so that each key changes the field's visible end (a frame that changes
    // nothing writes nothing, and the next key would never come).
    let title = String((0..<300).map { Character(String($0 % 10)) })
    let keys = [Key.character("n")] + title.map(Key.character) + [.enter, .character("q")]
    var next = keys[...]
    // NB: as a person types: the next key comes once the last one's frame is on the screen.
    // It then reaches the loop after the redraws the last key's changes asked for (queued while
    // the key was handled, before its frame was drawn), as a key typed a moment later does.
    let drawn = await FullScreenMode.run(
      navigation, session: session, events: events, size: TerminalSize(columns: 80, rows: 12)
    ) { _ in
      if let key = next.popFirst() { input.yield(.key(key)) }
    }
    #expect(next.isEmpty)
    #expect(session.board.cards.map(\.title) == [title])
    #expect(drawn <= 2 * keys.count + 2)
  }
}

/// Pasted and long text: one insertion, a field that scrolls, a detail view that wraps.
extension FullScreenTests {
  @Test func aPasteIsOneInsertionAndTheFieldShowsItsEnd() async throws {
    let pasted = String(repeating: "lorem ipsum\r\n\tdolor, ", count: 5_000)
    #expect(pasted.count == 100_000)
    await press(.character("n"), .paste(pasted))
    let line = screen()[4]
    #expect(line.hasPrefix("  Title:  …"))
    #expect(line.hasSuffix("dolor, lorem ipsum  dolor,"))
    #expect(DisplayWidth.columns(of: line) <= 100)
    await type("!")
    #expect(screen()[4].hasSuffix("ipsum  dolor, !"))
    await press(.enter)
    let title = try #require(session.board.cards.first?.title)
    #expect(title.count == 100_001)
    #expect(!title.contains { $0.isNewline || $0 == "\t" })
    #expect(title.hasSuffix("dolor, !") && title.hasPrefix("lorem ipsum  dolor, lorem"))
  }

  @Test func aPasteIntoSearchSearchesOnceForTheWholeText() async throws {
    await session.run(.add(column: "Todo", title: "Ship the release"), waitsForSave: false)
    await press(.character("/"))
    let search = try #require(navigation.top.search)
    await press(.paste("the\nrelease"))
    #expect(search.state.query == "the release")
    await clock.advance(by: SearchScreen.debounce)
    await search.waitUntilIdle()
    #expect(search.state.searchedQuery == "the release")
    #expect(search.state.results.map(\.id) == [1])
  }

  @Test func theDetailViewWrapsALongTitleToReadItWhole() async throws {
    let words = (1...40).map { "word\($0)" }
    await session.run(
      .add(column: "Todo", title: words.joined(separator: " ")), waitsForSave: false)
    await press(.home, .enter)
    let shown = screen(TerminalSize(columns: 60, rows: 20))
    let title = shown.prefix { !$0.contains("column:") }.joined(separator: " ")
    #expect(words.allSatisfy { title.contains($0) })
    #expect(shown.allSatisfy { DisplayWidth.columns(of: $0) <= 60 })
  }

  @Test func theNewCardFormOffersNoTabWithOneField() async throws {
    await press(.character("n"))
    #expect(screen().last == " ⏎ save  Esc cancel")
    await press(.escape)
    await session.run(.add(column: "Todo", title: "A"), waitsForSave: false)
    await press(.home, .character("e"))
    #expect(screen().last == " Tab next field  ⏎ save  Esc cancel")
  }
}

/// A key that has nothing to act on says so.
extension FullScreenTests {
  @Test func cardKeysOnAnEmptyColumnSaySo() async throws {
    for (key, verb) in [("e", "edit"), ("m", "move"), ("d", "delete")] as [(Character, String)] {
      await press(.character(key))
      #expect(screen()[18].hasPrefix(" no card in Todo to \(verb): n adds one"))
    }
    await press(.enter)
    #expect(screen()[18].hasPrefix(" no card in Todo to open: n adds one"))
    #expect(navigation.top.isBoard)
    await press(.right)
    #expect(!screen()[18].contains("no card"))
  }
}
