import EntityTracking
import Testing

@Suite struct EntityStoreWritingTests {
  struct Refusal: Error {}

  let a = Item(id: 1, value: 10)
  let b = Item(id: 2, value: 20)
  let c = Item(id: 3, value: 30)

  @Test func insertAppendsAndRecordsAnUpsert() {
    var store = EntityStore<Item>()
    store[a.id] = a
    store[b.id] = b
    #expect(store.values == [a, b])
    #expect(store.changes == [.upsert(1), .upsert(2)])
    expectInvariants(store)
  }

  @Test func replaceKeepsThePositionAndRecordsAnUpsert() {
    var store = EntityStore([a, b, c])
    store[2] = Item(id: 2, value: 99)
    #expect(store.values.map(\.value) == [10, 99, 30])
    #expect(store.changes == [.upsert(2)])
    expectInvariants(store)
  }

  @Test func settingAnEqualValueRecordsNothing() {
    var store = EntityStore([a])
    store[1] = a
    store.upsert(a)
    #expect(store.changes.isEmpty)
  }

  @Test func deleteRecordsADeletionAndUnknownIDsAreIgnored() {
    var store = EntityStore([a, b])
    store[1] = nil
    store[42] = nil
    #expect(store.values == [b])
    #expect(store.changes == [.deletion(1)])
    #expect(store.remove(42) == nil)
    #expect(store.remove(2) == b)
    #expect(store.isEmpty)
    expectInvariants(store)
  }

  @Test func modifyRecordsOnlyARealChange() {
    var store = EntityStore([a])
    store.modify(1) { $0.value = 10 }
    #expect(store.changes.isEmpty)
    store.modify(1) { $0.value += 1 }
    #expect(store[1]?.value == 11)
    #expect(store.changes == [.upsert(1)])
    store.modify(42) { $0.value = 0 }
    #expect(store.count == 1)
  }

  @Test func modifyThatThrowsLeavesTheStoreUnchanged() {
    var store = EntityStore([a])
    #expect(throws: Refusal.self) {
      try store.modify(1) {
        $0.value = 0
        throw Refusal()
      }
    }
    #expect(store.values == [a])
    #expect(!store.hasChanges)
  }

  @Test func sortRecordsOnlyEntitiesThatMovedInTheirNewOrder() {
    var store = EntityStore([c, b, a, Item(id: 4, value: 25)])
    store.sort { $0.value < $1.value }
    #expect(store.values.map(\.id) == [1, 2, 4, 3])
    // NB: 2 and 4 were already in sorted order: moving 1 and 3 is enough.
    #expect(store.changes == [.upsert(1), .upsert(3)])
    store.resetChanges()
    store.sort { $0.value < $1.value }
    #expect(store.changes.isEmpty)
    expectInvariants(store)
  }

  @Test func sortThatThrowsLeavesTheStoreUnchanged() {
    var store = EntityStore([c, b, a])
    #expect(throws: Refusal.self) {
      try store.sort { _, _ in throw Refusal() }
    }
    #expect(store.values == [c, b, a])
    #expect(!store.hasChanges)
    expectInvariants(store)
  }

  @Test func removeAllRecordsEachDeletionInOrder() {
    var store = EntityStore([a, b, c])
    store.removeAll { $0.value >= 20 }
    #expect(store.values == [a])
    #expect(store.changes == [.deletion(2), .deletion(3)])
    #expect(store[3] == nil)
    expectInvariants(store)
  }

  @Test func removeAllThatThrowsLeavesTheStoreUnchanged() {
    var store = EntityStore([a, b, c])
    store[4] = Item(id: 4, value: 40)
    #expect(throws: Refusal.self) {
      try store.removeAll { item in
        if item.id == 3 { throw Refusal() }
        return true
      }
    }
    #expect(store.values == [a, b, c, Item(id: 4, value: 40)])
    #expect(store.changes == [.upsert(4)])
    expectInvariants(store)
  }

  @Test func batchUpsertAndRemove() {
    var store = EntityStore<Item>()
    store.upsert(contentsOf: [a, b, c])
    store.remove(ids: [3, 1, 99])
    #expect(store.values == [b])
    #expect(store.changes == [.deletion(1), .upsert(2), .deletion(3)])
    expectInvariants(store)
  }

  @Test func deletingMostEntitiesKeepsLookupsAndOrderRight() {
    var store = EntityStore((0..<1_000).map { Item(id: $0, value: $0) })
    for id in 0..<1_000 where id % 10 != 0 {
      store[id] = nil
      if id % 97 == 0 { expectInvariants(store) }
    }
    #expect(store.count == 100)
    #expect(store.values.map(\.id) == Array(stride(from: 0, to: 1_000, by: 10)))
    #expect(store[990] == Item(id: 990, value: 990))
    store[5] = Item(id: 5, value: 5)
    #expect(store.values.last?.id == 5)
    expectInvariants(store)
  }
}
