import EntityTracking
import Testing

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
    #expect(store.distance(from: store.startIndex, to: store.endIndex) == 2)
    #expect(store[store.index(store.startIndex, offsetBy: 1)] == c)
    store.compact()
    #expect(
      store.distance(from: store.startIndex, to: store.index(store.startIndex, offsetBy: 1)) == 1)
    #expect(Array(store.reversed()) == [c, a])
  }
}
