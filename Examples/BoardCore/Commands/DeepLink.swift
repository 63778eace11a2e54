/// A place in the board given at start (`board --open card/42`).
struct DeepLink: Equatable {
  let cardID: Int

  /// Parses `card/ID`; anything else is refused with what the link should look like.
  init(_ text: String) throws(CommandError) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, parts[0] == "card" else {
      throw .badLink(text)
    }
    guard let id = Int(parts[1]), id > 0 else { throw .notACardNumber(String(parts[1])) }
    cardID = id
  }
}
