/// Why a line is not a command the board can run; the message says what to type instead.
enum CommandError: Error, Equatable, CustomStringConvertible {
  case unknownCommand(String)
  case missingArgument(command: String, usage: String)
  /// A word after the last argument a command takes (`delete 1 2`): one command per line.
  case unexpectedArgument(command: String, argument: String, usage: String)
  case notACardNumber(String)
  case noSuchCard(Int)
  case noSuchColumn(String, known: [String])
  case columnExists(String)
  case columnNotEmpty(String, cards: Int)
  case badDate(String)
  case unterminatedQuote
  case badLink(String)
  case emptyTitle
  /// DevTools show a past state (time travel): a change would be made to a board that is not
  /// the present one.
  case pausedByDevTools(at: Int)
  /// `keep` or `theirs` with no conflict with the server to settle (on that card).
  case noConflict(card: Int?)

  var description: String {
    switch self {
    case .unknownCommand(let word):
      "unknown command '\(word)' (type 'help' for the list)"
    case .missingArgument(let command, let usage):
      "\(command): missing argument (usage: \(usage))"
    case .unexpectedArgument(let command, let argument, let usage):
      "\(command): unexpected '\(argument)' (usage: \(usage); one command per line)"
    case .notACardNumber(let text):
      "'\(text)' is not a card number (cards are shown as #3; type 3)"
    case .noSuchCard(let id):
      "there is no card #\(id)"
    case .noSuchColumn(let name, let known):
      "there is no column '\(name)' (columns: \(known.joined(separator: ", ")))"
    case .columnExists(let name):
      "a column named '\(name)' already exists"
    case .columnNotEmpty(let name, let cards):
      "column '\(name)' still holds \(cards) card(s): move or delete them first"
    case .badDate(let text):
      "'\(text)' is not a date: use YYYY-MM-DD, or none"
    case .unterminatedQuote:
      "a quote is not closed"
    case .emptyTitle:
      "a card needs a title"
    case .pausedByDevTools(let position):
      "DevTools show the board as after #\(position) (time travel): resume on the DevTools "
        + "page before changing it"
    case .noConflict(let card):
      card.map { "#\($0) has no conflict with the server" } ?? "no conflict with the server waits"
    case .badLink(let text):
      "'\(text)' is not a link to a card: use card/ID, as in card/42"
    }
  }
}
