import EntityTracking
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
    #expect(store.ids == [])
    #expect(store.changes.isEmpty)
    #expect(!store.hasChanges)
    expectInvariants(store)
  }

  @Test func hydrationRecordsNothing() {
    let store = EntityStore([a, b])
    #expect(store.count == 2)
    #expect(store[2] == b)
    #expect(store.values == [a, b])
    #expect(store.changes.isEmpty)
    expectInvariants(store)
  }

  @Test func hydrationWithARepeatedIDReplacesInPlace() {
    let store = EntityStore([a, b, Item(id: 1, value: 11)])
    #expect(store.values == [Item(id: 1, value: 11), b])
    #expect(store.changes.isEmpty)
    expectInvariants(store)
  }

  @Test func readsByID() {
    let store = EntityStore([c, a])
    #expect(store[3] == c)
    #expect(store[42] == nil)
    #expect(store.contains(1))
    #expect(!store.contains(2))
    #expect(store.ids == [3, 1])
    #expect(store.values == [c, a])
  }

  @Test func anyHashableIDWorks() {
    struct Named: Identifiable, Equatable, Sendable {
      let id: String
      var title: String
    }
    var store = EntityStore<Named>()
    store["x"] = Named(id: "x", title: "X")
    #expect(store["x"]?.title == "X")
    #expect(store.changes == [.upsert("x")])
  }
}
