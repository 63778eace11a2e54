import EntityTracking
import Foundation
import Testing

@Suite struct EntityStoreCodableTests {
  let a = Item(id: 1, value: 10)
  let b = Item(id: 2, value: 20)
  let c = Item(id: 3, value: 30)

  @Test func codableRoundTripKeepsOrderAndRecordsNothing() throws {
    var store = EntityStore([c, a, b])
    store[9] = Item(id: 9, value: 9)
    let data = try JSONEncoder().encode(store)
    let decoded = try JSONDecoder().decode(EntityStore<Item>.self, from: data)
    #expect(decoded == store)
    #expect(decoded.changes.isEmpty)
  }
}
