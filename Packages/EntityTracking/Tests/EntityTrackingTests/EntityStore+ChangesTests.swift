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
    #expect(store.changes == [.deletion(1)])
    #expect(store.changes.upserts.isEmpty)
    expectInvariants(store)
  }

  @Test func deleteThenReinsertIsAnUpsertOnlyInTheDeletionsPlace() {
    var store = EntityStore([a, b])
    store[1] = nil
    store[2] = Item(id: 2, value: 21)
    store[1] = Item(id: 1, value: 11)
    #expect(store.changes == [.upsert(1), .upsert(2)])
    #expect(store.changes.deletions.isEmpty)
    #expect(store.values == [Item(id: 2, value: 21), Item(id: 1, value: 11)])
    expectInvariants(store)
  }

  @Test func changesKeepFirstChangeOrderAcrossUpsertsAndDeletions() {
    var store = EntityStore([a, b, c])
    store.modify(3) { $0.value = 0 }
    store[1] = nil
    store[4] = Item(id: 4, value: 40)
    store[3] = nil
    store.modify(2) { $0.value = 0 }
    #expect(store.changes == [.deletion(3), .deletion(1), .upsert(4), .upsert(2)])
    #expect(store.changes.upserts == [4, 2])
    #expect(store.changes.deletions == [3, 1])
    expectInvariants(store)
  }

  @Test func drainReturnsTheChangesAndClearsThem() {
    var store = EntityStore([a])
    store[2] = b
    store[1] = nil
    #expect(store.hasChanges)
    let drained = store.drainChanges()
    #expect(drained == [.upsert(2), .deletion(1)])
    #expect(!store.hasChanges)
    #expect(store.changes.isEmpty)
    #expect(store.drainChanges().isEmpty)
    expectInvariants(store)
  }

  @Test func everyDrainedUpsertIsStored() {
    var store = EntityStore([a, b, c])
    store[1] = nil
    store[1] = Item(id: 1, value: 11)
    store.modify(3) { $0.value = 31 }
    store[2] = nil
    let drained = store.drainChanges()
    #expect(drained.upserts.map { store[$0] } == [Item(id: 1, value: 11), Item(id: 3, value: 31)])
    #expect(drained.deletions == [2])
  }

  @Test func resetForgetsTheChangesAndRecordsAgainAfterwards() {
    var store = EntityStore([a, b])
    store.modify(1) { $0.value = 0 }
    store[2] = nil
    store.resetChanges()
    #expect(!store.hasChanges)
    expectInvariants(store)
    store.modify(1) { $0.value = 1 }
    #expect(store.changes == [.upsert(1)])
    expectInvariants(store)
  }

  @Test func drainKeepsFirstChangeOrderThroughCompaction() {
    var store = EntityStore((0..<100).map { Item(id: $0, value: $0) })
    store.modify(70) { $0.value = -1 }
    store.modify(5) { $0.value = -1 }
    store[200] = Item(id: 200, value: 0)
    store.modify(40) { $0.value = -1 }
    let kept: Set = [70, 5, 40, 200]
    let deleted = (0..<100).reversed().filter { !kept.contains($0) }
    for id in deleted { store[id] = nil }
    #expect(store.count == 4)  // compacted several times on the way
    expectInvariants(store)
    let drained = store.drainChanges()
    #expect(drained.upserts == [70, 5, 200, 40])
    #expect(drained.deletions == deleted)
    #expect(Array(drained.prefix(4)) == [.upsert(70), .upsert(5), .upsert(200), .upsert(40)])
    #expect(!store.hasChanges)
  }

  @Test func aDeletionStaysADeletionWhenMergeBringsTheIDBack() {
    var store = EntityStore([a, b])
    store[1] = nil
    store.merge(from: EntityStore([a])) { existing, _ in existing }
    #expect(store.values == [b, a])
    #expect(store.changes == [.deletion(1)])
    expectInvariants(store)
    store.modify(1) { $0.value = 12 }
    #expect(store.changes == [.upsert(1)])
    expectInvariants(store)
  }
}
