import ReduxKit
import Testing

/// `import ReduxKit` alone reaches every module.
@Suite struct UmbrellaTests {
  struct Note: Identifiable, Equatable, Sendable {
    let id: Int
    var text: String
  }

  @Test func queryCacheIsReexported() async throws {
    let client = QueryClient()
    let result = await client.fetch(queryKey: ["note", 1]) { Note(id: 1, text: "cached") }
    #expect(try result.result.get() == Note(id: 1, text: "cached"))
  }

  @Test func entityTrackingIsReexported() {
    var notes = EntityStore<Note>()
    notes[1] = Note(id: 1, text: "hello")
    #expect(notes.drainChanges().upserts == [1])
  }
}
