import Foundation
import Testing

@testable import BoardCore

@Suite struct CommandParserTests {
  @Test func wordsSplitAtSpacesAndQuotesKeepThemTogether() throws {
    #expect(
      try CommandParser.split(#"add Todo "Write the docs" now"#) == [
        "add", "Todo", "Write the docs", "now",
      ])
    #expect(try CommandParser.split("  list   ") == ["list"])
    #expect(try CommandParser.split(#"add Todo """#) == ["add", "Todo", ""])
    #expect(throws: CommandError.unterminatedQuote) { try CommandParser.split(#"add "Todo"#) }
  }

  @Test func commandsParseWithTheirArguments() throws {
    #expect(
      try CommandParser.parse(#"add Todo "Write docs""#)
        == .add(column: "Todo", title: "Write docs"))
    #expect(
      try CommandParser.parse("add Doing write more docs")
        == .add(column: "Doing", title: "write more docs"))
    #expect(try CommandParser.parse("move 3 Done") == .move(card: 3, column: "Done"))
    #expect(try CommandParser.parse("move #3 Done") == .move(card: 3, column: "Done"))
    #expect(
      try CommandParser.parse("tag 2 Docs urgent") == .edit(card: 2, [.tags(["docs", "urgent"])]))
    #expect(try CommandParser.parse("tag 2") == .edit(card: 2, [.tags([])]))
    #expect(try CommandParser.parse("due 2 none") == .edit(card: 2, [.due(nil)]))
    #expect(try CommandParser.parse("list") == .list(column: nil))
    #expect(try CommandParser.parse("search docs") == .search("docs"))
    #expect(
      try CommandParser.parse("column rename Doing Doing-now")
        == .renameColumn(from: "Doing", to: "Doing-now"))
    #expect(try CommandParser.parse("UNDO") == .undo)
    #expect(try CommandParser.parse("   ") == nil)
  }

  @Test func badLinesSayWhatIsWrong() {
    #expect(throws: CommandError.unknownCommand("frobnicate")) {
      try CommandParser.parse("frobnicate 3")
    }
    #expect(throws: CommandError.notACardNumber("three")) {
      try CommandParser.parse("move three Done")
    }
    #expect(throws: CommandError.missingArgument(command: "move", usage: "move CARD COLUMN")) {
      try CommandParser.parse("move 3")
    }
    #expect(throws: CommandError.badDate("2026-02-31")) {
      try CommandParser.parse("due 1 2026-02-31")
    }
    #expect(throws: CommandError.badDate("tomorrow")) { try CommandParser.parse("due 1 tomorrow") }
    #expect(throws: CommandError.badLink("cards/4")) { try DeepLink("cards/4") }
    #expect(throws: CommandError.notACardNumber("x")) { try DeepLink("card/x") }
  }

  @Test func aDueDateIsMidnightUTC() throws {
    let date = try #require(try CommandParser.date("2026-12-01"))
    #expect(date.timeIntervalSince1970 == 1_796_083_200)
  }
}
