import Testing

@testable import EntityTracking

@Suite struct EntityStoreCompactionTests {
  @Test func compactRemovesTombstonesAndKeepsOrderAndChanges() {
    var store = EntityStore((0..<10).map { Item(id: $0, value: $0) })
    store.modify(6) { $0.value = -6 }
    for id in [1, 4, 7] { store[id] = nil }
    store.modify(2) { $0.value = -2 }
    let changes = store.changes
    store.compact()
    #expect(store.slots.count == 7)
    #expect(store.ids == [0, 2, 3, 5, 6, 8, 9])
    #expect(store.changes == changes)
    expectInvariants(store)
    store.modify(6) { $0.value = 0 }  // already recorded: keeps its place
    store.modify(9) { $0.value = 0 }
    #expect(Array(store.changes) == Array(changes) + [.upsert(9)])
    expectInvariants(store)
  }

  @Test func tombstonesNeverOutnumberLiveEntitiesPastSixteen() {
    var store = EntityStore((0..<100).map { Item(id: $0, value: $0) })
    for id in stride(from: 0, to: 98, by: 2) {
      store[id] = nil
      let tombstones = store.slots.count - store.count
      #expect(tombstones <= max(16, store.count))
    }
    expectInvariants(store)
  }

  @Test func compactingADenseStoreChangesNothing() {
    var store = EntityStore((0..<5).map { Item(id: $0, value: $0) })
    store[9] = Item(id: 9, value: 9)
    let before = store
    store.compact()
    #expect(store == before)
    #expect(store.changes == [.upsert(9)])
  }
}
