// What README.md's "Offline first" takes as given.
import Foundation
import ReduxKit

struct Card: Identifiable, Codable, Equatable, Sendable {
  var id: String
  var title: String
}

let path = NSTemporaryDirectory() + "readme-sync.sqlite"
let server: any SyncRemote = InMemorySyncRemote()
