/// The numbers the board shows for the server's ids: each id gets the next number the first
/// time it is seen.
struct ServerIDs {
  private var cards: [String: Int] = [:]
  private var cardIDs: [Int: String] = [:]
  private var columns: [String: Int] = [:]
  private var columnIDs: [Int: String] = [:]
  private(set) var nextCard = 1
  private(set) var nextColumn = 1

  mutating func card(_ serverID: String) -> Int {
    if let id = cards[serverID] { return id }
    adopt(card: nextCard, as: serverID)
    return cards[serverID] ?? 0
  }

  mutating func column(_ serverID: String) -> Int {
    if let id = columns[serverID] { return id }
    adopt(column: nextColumn, as: serverID)
    return columns[serverID] ?? 0
  }

  func serverCard(_ id: Int) -> String? { cardIDs[id] }
  /// The number of a card already seen, without giving one to a new id.
  func number(ofCard serverID: String) -> Int? { cards[serverID] }
  func serverColumn(_ id: Int) -> String? { columnIDs[id] }

  mutating func adopt(card id: Int, as serverID: String) {
    cards[serverID] = id
    cardIDs[id] = serverID
    nextCard = max(nextCard, id + 1)
  }

  mutating func adopt(column id: Int, as serverID: String) {
    columns[serverID] = id
    columnIDs[id] = serverID
    nextColumn = max(nextColumn, id + 1)
  }
}
