import EntityTracking
import Foundation
import Testing

@Suite struct EntityStoreCodableTests {
  @Test func roundTripKeepsOrderAndRecordsNothing() throws {
    var store = EntityStore([Item(id: 3, value: 30), Item(id: 1, value: 10)])
    store[9] = Item(id: 9, value: 9)
    store[3] = nil
    let data = try JSONEncoder().encode(store)
    let decoded = try JSONDecoder().decode(EntityStore<Item>.self, from: data)
    #expect(decoded == store)
    #expect(decoded.changes.isEmpty)
  }

  @Test func encodesAPlainArray() throws {
    let store = EntityStore([Item(id: 2, value: 20)])
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let json = String(decoding: try encoder.encode(store), as: UTF8.self)
    #expect(json == #"[{"id":2,"value":20}]"#)
  }

  @Test func decodingSomethingElseThrows() {
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(EntityStore<Item>.self, from: Data(#"{"id":2}"#.utf8))
    }
  }
}
