import Foundation

/// Turns a line into a ``Command``: words split at spaces, "quoted words" kept together.
/// It checks the shape of a line only; whether a card or column exists is the session's check.
enum CommandParser {
  static func parse(_ line: String) throws(CommandError) -> Command? {
    let words = try split(line)
    guard let name = words.first?.lowercased() else { return nil }
    let arguments = Array(words.dropFirst())
    func rest(from index: Int) -> String? {
      guard arguments.count > index else { return nil }
      return arguments[index...].joined(separator: " ")
    }
    func required(_ value: String?, _ usage: String) throws(CommandError) -> String {
      guard let value, !value.isEmpty else {
        throw .missingArgument(command: name, usage: usage)
      }
      return value
    }
    /// Refuses words after the first `count` arguments.
    func nothing(after count: Int, _ usage: String) throws(CommandError) {
      guard arguments.count > count else { return }
      throw .unexpectedArgument(command: name, argument: arguments[count], usage: usage)
    }
    func card(_ usage: String) throws(CommandError) -> Int {
      let text = try required(arguments.first, usage)
      guard let id = Int(text.trimmingPrefix("#")), id > 0 else { throw .notACardNumber(text) }
      return id
    }
    switch name {
    case "add":
      let usage = "add COLUMN TITLE"
      return .add(
        column: try required(arguments.first, usage), title: try required(rest(from: 1), usage))
    case "move", "mv":
      let usage = "move CARD COLUMN"
      return .move(card: try card(usage), column: try required(rest(from: 1), usage))
    case "title", "edit":
      let usage = "title CARD TITLE"
      return .edit(card: try card(usage), [.title(try required(rest(from: 1), usage))])
    case "note", "notes":
      return .edit(card: try card("note CARD TEXT"), [.notes(rest(from: 1) ?? "")])
    case "tag", "tags":
      let tags = arguments.dropFirst().map { $0.lowercased() }
      return .edit(card: try card("tag CARD TAG..."), [.tags(Array(tags))])
    case "due":
      let usage = "due CARD YYYY-MM-DD|none"
      let id = try card(usage)
      let text = try required(arguments.dropFirst().first, usage)
      try nothing(after: 2, usage)
      return .edit(card: id, [.due(try date(text))])
    case "keep", "theirs":
      let usage = "\(name) [CARD]"
      try nothing(after: 1, usage)
      return .resolve(
        card: arguments.isEmpty ? nil : try card(usage), keepingMine: name == "keep")
    case "delete", "rm":
      try nothing(after: 1, "delete CARD")
      return .delete(card: try card("delete CARD"))
    case "show", "open":
      try nothing(after: 1, "show CARD")
      return .show(card: try card("show CARD"))
    case "list", "ls":
      return .list(column: rest(from: 0))
    case "search", "/":
      return .search(try required(rest(from: 0), "search TEXT"))
    case "column", "col":
      return try column(arguments)
    default:
      let commands: [String: Command] = [
        "stats": .stats, "status": .status, "undo": .undo, "u": .undo, "redo": .redo, "r": .redo,
        "help": .help,
        "?": .help, "quit": .quit, "exit": .quit, "q": .quit,
      ]
      guard let command = commands[name] else { throw .unknownCommand(words[0]) }
      try nothing(after: 0, name)
      return command
    }
  }

  private static func column(_ arguments: [String]) throws(CommandError) -> Command {
    let usage = "column add NAME | column rename OLD NEW | column delete NAME"
    switch (arguments.first?.lowercased(), arguments.count) {
    case ("add", 2...): return .addColumn(arguments[1...].joined(separator: " "))
    case ("rename", 3): return .renameColumn(from: arguments[1], to: arguments[2])
    case ("delete", 2...): return .deleteColumn(arguments[1...].joined(separator: " "))
    default: throw .missingArgument(command: "column", usage: usage)
    }
  }

  /// A due date: `YYYY-MM-DD` (midnight UTC), or `none`.
  static func date(_ text: String) throws(CommandError) -> Date? {
    guard text.lowercased() != "none" else { return nil }
    let parts = text.split(separator: "-").compactMap { Int($0) }
    guard parts.count == 3, (1...12).contains(parts[1]), (1...31).contains(parts[2]) else {
      throw .badDate(text)
    }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let components = DateComponents(year: parts[0], month: parts[1], day: parts[2])
    // NB: the calendar rolls 2026-02-31 over to March: read the day back to refuse it.
    guard let date = calendar.date(from: components),
      calendar.component(.day, from: date) == parts[2]
    else { throw .badDate(text) }
    return date
  }

  /// Splits a line into words; double quotes keep spaces inside a word.
  static func split(_ line: String) throws(CommandError) -> [String] {
    var words: [String] = []
    var word = ""
    var isQuoted = false
    var hasWord = false
    for character in line {
      switch character {
      case "\"":
        isQuoted.toggle()
        hasWord = true
      case " " where !isQuoted, "\t" where !isQuoted:
        if hasWord { words.append(word) }
        word = ""
        hasWord = false
      default:
        word.append(character)
        hasWord = true
      }
    }
    guard !isQuoted else { throw .unterminatedQuote }
    if hasWord { words.append(word) }
    return words
  }
}
