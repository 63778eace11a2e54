import EntityTracking
import Testing

@Suite struct EntityStoreBulkReplacementTests {
  let a = Item(id: 1, value: 10)
  let b = Item(id: 2, value: 20)
  let c = Item(id: 3, value: 30)

  @Test func mergeLabelsSayWhichIsExistingAndWhichIncoming() {
    var store = EntityStore([Item(id: 1, value: 1)])
    let incoming = EntityStore([Item(id: 1, value: 2), Item(id: 5, value: 5)])
    var seen: [(Int, Int)] = []
    store.merge(from: incoming) { existing, incoming in
      seen.append((existing.value, incoming.value))
      return existing
    }
    #expect(seen.map(\.0) == [1])
    #expect(seen.map(\.1) == [2])
    #expect(store.values == [Item(id: 1, value: 1), Item(id: 5, value: 5)])
    #expect(store.changes.isEmpty)
    store.merge(from: incoming) { _, incoming in incoming }
    #expect(store[1]?.value == 2)
    #expect(store.changes.isEmpty)
    expectInvariants(store)
  }

  @Test func restoreRecordsTheDifferenceDeletionsFirst() {
    var store = EntityStore([a, b, c])
    let saved = EntityStore([Item(id: 4, value: 40), a, Item(id: 2, value: 0)])
    store.restore(from: saved)
    #expect(store == saved)
    #expect(store.changes == [.deletion(3), .upsert(4), .upsert(2)])
    expectInvariants(store)
  }

  @Test func restoreKeepsEarlierChangesInTheirPlace() {
    var store = EntityStore([a, b, c])
    store.modify(3) { $0.value = 0 }
    store[1] = nil
    store.restore(from: EntityStore([b, Item(id: 3, value: 0), a]))
    #expect(store.values == [b, Item(id: 3, value: 0), a])
    #expect(store.changes == [.upsert(3), .upsert(1)])
    expectInvariants(store)
  }

  @Test func restoringTheSameEntitiesRecordsNothing() {
    var same = EntityStore([a, b])
    same.restore(from: EntityStore([a, b]))
    #expect(same.changes.isEmpty)
    expectInvariants(same)
  }
}
