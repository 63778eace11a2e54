import Testing

@testable import EntityTracking

@Suite struct EntityStoreCollectionTests {
  let a = Item(id: 1, value: 10)
  let b = Item(id: 2, value: 20)
  let c = Item(id: 3, value: 30)

  @Test func isARandomAccessCollectionInOrder() {
    var store: EntityStore<Item> = [a, b, c]
    #expect(store.map(\.id) == [1, 2, 3])
    #expect(store.first == a)
    #expect(store.last == c)
    store[2] = nil
    #expect(Array(store) == [a, c])
    #expect(store.count == 2)
    #expect(Array(store.reversed()) == [c, a])
    #expect(store.distance(from: store.startIndex, to: store.endIndex) == 2)
    #expect(store[store.index(store.startIndex, offsetBy: 1)] == c)
    #expect(store.index(store.startIndex, offsetBy: 3, limitedBy: store.endIndex) == nil)
    #expect(store[store.index(before: store.endIndex)] == c)
    expectInvariants(store)
  }

  @Test func indicesStepOverTombstonesBothWays() {
    var store = EntityStore((0..<8).map { Item(id: $0, value: $0) })
    for id in [1, 2, 5] { store[id] = nil }
    let forward = store.indices.map { store[$0].id }
    #expect(forward == [0, 3, 4, 6, 7])
    var backward: [Int] = []
    var index = store.endIndex
    while index != store.startIndex {
      store.formIndex(before: &index)
      backward.append(store[index].id)
    }
    #expect(backward == [7, 6, 4, 3, 0])
  }

  @Test func offsetsAndDistancesAgreeWithAnArrayWithAndWithoutTombstones() {
    var store = EntityStore((0..<12).map { Item(id: $0, value: $0) })
    for id in [0, 3, 4, 8, 11] { store[id] = nil }
    #expect(collectionDisagreement(store, store.values) == nil)
    store.compact()
    #expect(store.slots.count == store.count)
    #expect(collectionDisagreement(store, store.values) == nil)
  }

  @Test func arrayLiteralHydrates() {
    let store: EntityStore<Item> = [b, a]
    #expect(store.values == [b, a])
    #expect(!store.hasChanges)
  }
}
