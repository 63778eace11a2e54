import EntityTracking
import Foundation
import Testing

@Suite struct EntityStoreTests {
  let a = Item(id: 1, value: 10)
  let b = Item(id: 2, value: 20)
  let c = Item(id: 3, value: 30)

  @Test func emptyStore() {
    let store = EntityStore<Item>()
    #expect(store.isEmpty)
    #expect(store.count == 0)
    #expect(store.values == [])
    #expect(store.changes.isEmpty)
  }

  @Test func hydrationRecordsNothing() {
    let store = EntityStore([a, b])
    #expect(store.count == 2)
    #expect(store[2] == b)
    #expect(store.values == [a, b])
    #expect(store.changes.isEmpty)
  }

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
  }

  @Test func restoreRecordsTheDifference() {
    var store = EntityStore([a, b, c])
    let saved = EntityStore([a, Item(id: 2, value: 0), Item(id: 4, value: 40)])
    store.restore(from: saved)
    #expect(store == saved)
    #expect(store.changes.upserts == [2, 4])
    #expect(store.changes.deletions == [3])
    var same = EntityStore([a])
    same.restore(from: EntityStore([a]))
    #expect(same.changes.isEmpty)
  }

  @Test func equalityComparesEntitiesInOrderAndIgnoresChanges() {
    var recorded = EntityStore<Item>()
    recorded[1] = a
    #expect(recorded == EntityStore([a]))
    #expect(EntityStore([a, b]) != EntityStore([b, a]))
    #expect(EntityStore([a]) != EntityStore([b]))
  }

  @Test func isARandomAccessCollectionInOrder() {
    var store: EntityStore<Item> = [a, b, c]
    #expect(store.map(\.id) == [1, 2, 3])
    #expect(store.first == a)
    #expect(store.last == c)
    store[2] = nil
    #expect(Array(store) == [a, c])
    #expect(store.count == 2)
    #expect(store.distance(from: store.startIndex, to: store.endIndex) == 2)
    #expect(store[store.index(store.startIndex, offsetBy: 1)] == c)
    store.compact()
    #expect(
      store.distance(from: store.startIndex, to: store.index(store.startIndex, offsetBy: 1)) == 1)
    #expect(Array(store.reversed()) == [c, a])
  }

  @Test func codableRoundTripKeepsOrderAndRecordsNothing() throws {
    var store = EntityStore([c, a, b])
    store[9] = Item(id: 9, value: 9)
    let data = try JSONEncoder().encode(store)
    let decoded = try JSONDecoder().decode(EntityStore<Item>.self, from: data)
    #expect(decoded == store)
    #expect(decoded.changes.isEmpty)
  }

  @Test func anyHashableIDWorks() {
    struct Named: Identifiable, Equatable, Sendable {
      let id: String
      var title: String
    }
    var store = EntityStore<Named>()
    store["x"] = Named(id: "x", title: "X")
    #expect(store["x"]?.title == "X")
    #expect(store.changes.upserts == ["x"])
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

@Suite struct ChangeSetTests {
  @Test func freshIsEmpty() {
    #expect(ChangeSet<Int>().isEmpty)
  }

  @Test func lastOperationWins() {
    var changes = ChangeSet<Int>()
    changes.recordUpsert(1)
    changes.recordDeletion(1)
    #expect(changes == ChangeSet(upserts: [], deletions: [1]))
    changes.recordUpsert(1)
    #expect(changes == ChangeSet(upserts: [1], deletions: []))
  }

  @Test func unionAppliesTheLaterSetLast() {
    var earlier = ChangeSet(upserts: [1, 2], deletions: [3])
    earlier.formUnion(ChangeSet(upserts: [3], deletions: [1]))
    #expect(earlier == ChangeSet(upserts: [2, 3], deletions: [1]))
  }
}
