import Testing

@testable import EntityTracking

@Suite struct EntityStoreCollectionTests {
  let a = Item(id: 1, value: 10)
  let b = Item(id: 2, value: 20)
  let c = Item(id: 3, value: 30)

  @Test func isABidirectionalCollectionInOrder() {
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

  @Test func claimsNoRandomAccess() {
    // Offsets are not O(1) while tombstones exist, so the store does not claim they are.
    let type: Any.Type = EntityStore<Item>.self
    #expect(!(type is any RandomAccessCollection.Type))
    #expect(type is any BidirectionalCollection.Type)
  }

  @Test func startIndexIsTheFirstLiveEntityWithNoScan() {
    var store = EntityStore((0..<10).map { Item(id: $0, value: $0) })
    for id in [2, 0, 1] { store[id] = nil }
    #expect(store.firstLiveSlot == 3)
    #expect(store.first == Item(id: 3, value: 3))
    #expect(store.startIndex == store.indices.first)
    expectInvariants(store)
  }

  @Test func deletingTheLastEntitiesDropsTheTrailingTombstones() {
    var store = EntityStore((0..<10).map { Item(id: $0, value: $0) })
    for id in [7, 8, 9] { store[id] = nil }
    #expect(store.slots.count == 7)  // 7 and 8 went when 9 did
    #expect(store.last == Item(id: 6, value: 6))
    for id in (0..<7).shuffled() { store[id] = nil }
    #expect(store.slots.isEmpty)
    #expect(store.startIndex == store.endIndex)
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
