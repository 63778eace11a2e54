// What README.md's "QueryCache in one screen" takes as given.
import ReduxKit

struct User: Codable, Equatable, Sendable {
  var name: String
}

struct API: Sendable {
  func user(_ id: Int) async throws -> User { User(name: "Ada") }
}

let api = API()
let id = 1
