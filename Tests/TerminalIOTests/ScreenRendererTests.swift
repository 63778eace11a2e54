import Testing

@testable import TerminalIO

private let escape = "\u{1B}"

/// The bytes that start every full redraw: cursor hidden, styles off, screen erased.
private let fullRedraw = "\(escape)[?25l\(escape)[0m\(escape)[1;1H\(escape)[2J"

@Suite struct ScreenRendererTests {
  let size = TerminalSize(columns: 10, rows: 3)

  @Test func firstFrameErasesTheScreenAndDrawsEveryLine() {
    var renderer = ScreenRenderer(size: size)
    let output = renderer.render(ScreenFrame(lines: ["ab", "", "cd"]))
    #expect(output == fullRedraw + "\(escape)[1;1Hab\(escape)[3;1Hcd")
    #expect(renderer.previousFrame == ScreenFrame(lines: ["ab", "", "cd"]))
  }

  @Test func unchangedFrameWritesNothing() {
    var renderer = ScreenRenderer(size: size)
    _ = renderer.render(ScreenFrame(lines: ["ab", "cd"]))
    #expect(renderer.render(ScreenFrame(lines: ["ab", "cd"])) == "")
    // NB: a line that differs only past the screen's edge looks the same.
    #expect(renderer.render(ScreenFrame(lines: ["ab", "cd", "", "below the screen"])) == "")
    #expect(
      renderer.render(ScreenFrame(lines: ["ab", ScreenLine(spans: [.init("c"), .init("d")])])) == ""
    )
  }

  @Test func oneChangedLineRewritesOnlyThatLine() {
    var renderer = ScreenRenderer(size: size)
    _ = renderer.render(ScreenFrame(lines: ["ab", "cd", "ef"]))
    let output = renderer.render(ScreenFrame(lines: ["ab", "xyz", "ef"]))
    #expect(output == "\(escape)[2;1Hxyz\(escape)[K")
  }

  @Test func removedLinesAreErased() {
    var renderer = ScreenRenderer(size: size)
    _ = renderer.render(ScreenFrame(lines: ["ab", "cd"]))
    #expect(renderer.render(ScreenFrame(lines: ["ab"])) == "\(escape)[2;1H\(escape)[K")
  }

  @Test func styleChangeRewritesTheLine() {
    var renderer = ScreenRenderer(size: size)
    _ = renderer.render(ScreenFrame(lines: ["ab"]))
    let output = renderer.render(ScreenFrame(lines: [ScreenLine("ab", style: .bold)]))
    #expect(output == "\(escape)[1;1H\(escape)[0;1mab\(escape)[0m\(escape)[K")
  }

  @Test func clipsToTheWidthWithoutSplittingCharacters() {
    let narrow = TerminalSize(columns: 5, rows: 4)
    let frame = ScreenFrame(lines: ["héllo wörld", "日本語", "e\u{301}e\u{301}e\u{301}xyz", "ab😀c"])
    let output = ScreenRenderer.output(for: frame, after: nil, size: narrow)
    #expect(
      output == fullRedraw + "\(escape)[1;1Hhéllo" + "\(escape)[2;1H日本"
        + "\(escape)[3;1He\u{301}e\u{301}e\u{301}xy" + "\(escape)[4;1Hab😀c")
    var renderer = ScreenRenderer(size: narrow)
    _ = renderer.render(frame)
    // NB: 日本人 is cut to 日本 as 日本語 was, so its row is unchanged; the third row is erased.
    let changed = renderer.render(ScreenFrame(lines: ["héllo wörld", "日本人", "", "ab😀c"]))
    #expect(changed == "\(escape)[3;1H\(escape)[K")
    let shorter = renderer.render(ScreenFrame(lines: ["héllo wörld", "日", "", "ab😀c"]))
    #expect(shorter == "\(escape)[2;1H日\(escape)[K")
  }

  @Test func stylesAreSelectedPerSpanAndResetAtTheEnd() {
    var line = ScreenLine("a", style: .bold)
    line.append("b")
    line.append("c", style: [.inverse, .dim])
    let drawn = ScreenRenderer.drawnRow(line, width: 10)
    #expect(drawn.text == "\(escape)[0;1ma\(escape)[0mb\(escape)[0;2;7mc\(escape)[0m")
    #expect(drawn.columns == 3)
  }

  @Test func paddedLineFillsTheWidthInItsStyle() {
    let line = ScreenLine("x").padded(toWidth: 4, style: .inverse)
    #expect(line.displayWidth == 4)
    let drawn = ScreenRenderer.drawnRow(line, width: 4)
    #expect(drawn.text == "\(escape)[0;7mx   \(escape)[0m")
    var renderer = ScreenRenderer(size: TerminalSize(columns: 4, rows: 1))
    _ = renderer.render(ScreenFrame(lines: ["x"]))
    // NB: a full-width line needs no erase after it.
    #expect(renderer.render(ScreenFrame(lines: [line])) == "\(escape)[1;1H" + drawn.text)
  }

  @Test func controlCharactersAreDrawnAsReplacements() {
    let drawn = ScreenRenderer.drawnRow("a\tb\r\nc\u{1B}[2J", width: 20)
    #expect(drawn.text == "a\u{FFFD}b\u{FFFD}c\u{FFFD}[2J")
    #expect(drawn.columns == 9)
  }

  @Test func cursorIsPlacedShownAndHidden() {
    var renderer = ScreenRenderer(size: size)
    let lines: [ScreenLine] = ["name: ab"]
    _ = renderer.render(ScreenFrame(lines: lines))
    let shown = renderer.render(
      ScreenFrame(lines: lines, cursor: ScreenPosition(row: 0, column: 8)))
    #expect(shown == "\(escape)[1;9H\(escape)[?25h")
    #expect(
      renderer.render(ScreenFrame(lines: lines, cursor: ScreenPosition(row: 0, column: 8))) == "")
    let typed = renderer.render(
      ScreenFrame(lines: ["name: abc"], cursor: ScreenPosition(row: 0, column: 9)))
    #expect(typed == "\(escape)[1;1Hname: abc\(escape)[K\(escape)[1;10H")
    #expect(renderer.render(ScreenFrame(lines: ["name: abc"])) == "\(escape)[?25l")
  }

  @Test func cursorOutsideTheScreenIsKeptOnIt() {
    let output = ScreenRenderer.output(
      for: ScreenFrame(lines: [], cursor: ScreenPosition(row: 7, column: 99)), after: nil,
      size: size)
    #expect(output == fullRedraw + "\(escape)[3;10H\(escape)[?25h")
  }

  @Test func resizeOrInvalidateRedrawsEverything() {
    var renderer = ScreenRenderer(size: size)
    let frame = ScreenFrame(lines: ["ab"])
    _ = renderer.render(frame)
    renderer.size = size
    #expect(renderer.render(frame) == "")
    renderer.size = TerminalSize(columns: 20, rows: 3)
    #expect(renderer.previousFrame == nil)
    #expect(renderer.render(frame) == fullRedraw + "\(escape)[1;1Hab")
    renderer.invalidate()
    #expect(renderer.render(frame) == fullRedraw + "\(escape)[1;1Hab")
  }

  @Test func linesBelowTheScreenAreNotDrawn() {
    let output = ScreenRenderer.output(
      for: ScreenFrame(lines: ["1", "2", "3", "4"]), after: nil,
      size: TerminalSize(columns: 5, rows: 2))
    #expect(output == fullRedraw + "\(escape)[1;1H1\(escape)[2;1H2")
  }
}
