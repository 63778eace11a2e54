import EntityTracking

struct Item: Identifiable, Equatable, Sendable {
  let id: Int
  var name: String
}

struct Tag: Identifiable, Equatable, Sendable {
  let id: String
  var name: String = ""
}

struct AppState {
  var tags = EntityStore<Tag>()
  var items = EntityStore<Item>()
}

struct DiskError: Error, Equatable {}
