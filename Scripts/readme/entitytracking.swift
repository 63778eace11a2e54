// What README.md's "EntityTracking in one screen" takes as given.
import ReduxKit

struct Card: Identifiable, Codable, Equatable, Sendable {
  var id: Int
  var title: String
  var sortIndex: Int
}

let loaded = [Card(id: 1, title: "One", sortIndex: 0)]
var card = loaded[0]
let saved = EntityStore<Card>()
func save(_ card: Card) {}
func delete(_ id: Card.ID) {}
