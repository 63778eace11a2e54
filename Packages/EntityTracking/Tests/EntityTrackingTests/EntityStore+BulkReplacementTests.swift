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
}
