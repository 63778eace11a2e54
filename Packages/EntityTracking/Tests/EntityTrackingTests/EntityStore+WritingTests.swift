import EntityTracking
import Testing

@Suite struct EntityStoreWritingTests {
  let a = Item(id: 1, value: 10)
  let b = Item(id: 2, value: 20)
  let c = Item(id: 3, value: 30)

  @Test func insertAppendsAndRecordsAnUpsert() {
    var store = EntityStore<Item>()
    store[a.id] = a
    store[b.id] = b
    #expect(store.values == [a, b])
    #expect(store.changes.upserts == [1, 2])
    #expect(store.changes.deletions.isEmpty)
  }

  @Test func replaceKeepsThePositionAndRecordsAnUpsert() {
    var store = EntityStore([a, b, c])
    store[2] = Item(id: 2, value: 99)
    #expect(store.values.map(\.value) == [10, 99, 30])
    #expect(store.changes.upserts == [2])
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
    #expect(store.changes.deletions == [1])
    #expect(store.remove(42) == nil)
    #expect(store[42] == nil)
  }

  @Test func modifyRecordsOnlyARealChange() {
    var store = EntityStore([a])
    store.modify(1) { $0.value = 10 }
    #expect(store.changes.isEmpty)
    store.modify(1) { $0.value += 1 }
    #expect(store[1]?.value == 11)
    #expect(store.changes.upserts == [1])
    store.modify(42) { $0.value = 0 }
    #expect(store.count == 1)
  }

  @Test func sortRecordsOnlyEntitiesThatMoved() {
    var store = EntityStore([c, b, a, Item(id: 4, value: 25)])
    store.sort { $0.value < $1.value }
    #expect(store.values.map(\.id) == [1, 2, 4, 3])
    #expect(store.changes.upserts == [1, 4, 3])
    store.resetChanges()
    store.sort { $0.value < $1.value }
    #expect(store.changes.isEmpty)
  }

  @Test func removeAllRecordsEachDeletion() {
    var store = EntityStore([a, b, c])
    store.removeAll { $0.value >= 20 }
    #expect(store.values == [a])
    #expect(store.changes.deletions == [2, 3])
    #expect(store[3] == nil)
  }

  @Test func batchUpsertAndRemove() {
    var store = EntityStore<Item>()
    store.upsert(contentsOf: [a, b, c])
    store.remove(ids: [1, 3, 99])
    #expect(store.values == [b])
    #expect(store.changes.upserts == [2])
    #expect(store.changes.deletions == [1, 3])
  }

  @Test func deletingMostEntitiesKeepsLookupsAndOrderRight() {
    var store = EntityStore((0..<1_000).map { Item(id: $0, value: $0) })
    for id in stride(from: 0, to: 1_000, by: 1) where id % 10 != 0 { store[id] = nil }
    #expect(store.count == 100)
    #expect(store.values.map(\.id) == Array(stride(from: 0, to: 1_000, by: 10)))
    #expect(store[990] == Item(id: 990, value: 990))
    store[5] = Item(id: 5, value: 5)
    #expect(store.values.last?.id == 5)
  }
}
