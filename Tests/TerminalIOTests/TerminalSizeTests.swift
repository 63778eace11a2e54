import Testing

@testable import TerminalIO

@Suite struct TerminalSizeTests {
  @Test(
    arguments: [
      (TerminalSize(columns: 120, rows: 40), [:], TerminalSize(columns: 120, rows: 40)),
      (
        TerminalSize(columns: 120, rows: 40), ["COLUMNS": "90"],
        TerminalSize(columns: 120, rows: 40)
      ),
      (nil, ["COLUMNS": "100", "LINES": "30"], TerminalSize(columns: 100, rows: 30)),
      (nil, ["COLUMNS": " 100 "], TerminalSize(columns: 100, rows: 24)),
      (nil, [:], TerminalSize(columns: 80, rows: 24)),
      (nil, ["COLUMNS": "wide", "LINES": "-3"], TerminalSize(columns: 80, rows: 24)),
      (TerminalSize(columns: 0, rows: 0), ["LINES": "50"], TerminalSize(columns: 80, rows: 50)),
      (TerminalSize(columns: 132, rows: 0), [:], TerminalSize(columns: 132, rows: 24)),
    ] as [(TerminalSize?, [String: String], TerminalSize)])
  func resolvesEachDimensionFromTheFirstSourceThatKnows(
    windowSize: TerminalSize?, environment: [String: String], expected: TerminalSize
  ) {
    #expect(TerminalSize.resolve(windowSize: windowSize, environment: environment) == expected)
  }

  @Test func descriptionIsColumnsByRows() {
    #expect(TerminalSize.fallback.description == "80x24")
  }

  @Test func aPipeHasNoWindowSize() throws {
    let pipe = try TestPipe()
    #expect(TerminalSize.windowSize(fileDescriptor: pipe.readEnd) == nil)
    let current = TerminalSize.current(fileDescriptor: pipe.readEnd)
    #expect(current.columns > 0 && current.rows > 0)
  }
}
