import EntityTracking
import Testing

@Suite struct EntityStoreChangesTests {
  let a = Item(id: 1, value: 10)
  let b = Item(id: 2, value: 20)
  let c = Item(id: 3, value: 30)

  @Test func insertThenDeleteInOneCycleIsADeletionOnly() {
    var store = EntityStore<Item>()
    store[1] = a
    store[1] = nil
    #expect(store.changes.upserts.isEmpty)
    #expect(store.changes.deletions == [1])
  }

  @Test func deleteThenReinsertIsAnUpsertOnly() {
    var store = EntityStore([a])
    store[1] = nil
    store[1] = Item(id: 1, value: 11)
    #expect(store.changes.upserts == [1])
    #expect(store.changes.deletions.isEmpty)
    #expect(store.values == [Item(id: 1, value: 11)])
  }

  @Test func drainReturnsTheChangesAndClearsThem() {
    var store = EntityStore([a])
    store[2] = b
    store[1] = nil
    let drained = store.drainChanges()
    #expect(drained.upserts == [2])
    #expect(drained.deletions == [1])
    #expect(store.changes.isEmpty)
    #expect(store.drainChanges().isEmpty)
  }

  @Test func orderedDrainKeepsFirstChangeOrderThroughCompaction() {
    var store = EntityStore((0..<100).map { Item(id: $0, value: $0) })
    store.modify(70) { $0.value = -1 }
    store.modify(5) { $0.value = -1 }
    store[200] = Item(id: 200, value: 0)
    store.modify(40) { $0.value = -1 }
    for id in (0..<100).reversed() where ![70, 5, 40].contains(id) { store[id] = nil }
    #expect(store.count == 4)  // compacted several times on the way
    let drained = store.drainOrderedChanges()
    #expect(drained.upserts.map(\.id) == [70, 5, 200, 40])
    #expect(drained.deletions == (0..<100).reversed().filter { ![70, 5, 40].contains($0) })
    #expect(!store.hasChanges)
  }

  @Test func orderedDrainSkipsReinsertedDeletions() {
    var store = EntityStore([a, b, c])
    store[1] = nil
    store[2] = nil
    store[1] = a
    store[3] = nil
    let drained = store.drainOrderedChanges()
    #expect(drained.upserts == [a])
    #expect(drained.deletions == [2, 3])
  }
}
