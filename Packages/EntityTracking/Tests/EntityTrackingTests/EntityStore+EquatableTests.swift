import EntityTracking
import Testing

@Suite struct EntityStoreEquatableTests {
  let a = Item(id: 1, value: 10)
  let b = Item(id: 2, value: 20)

  @Test func equalityComparesEntitiesInOrderAndIgnoresChanges() {
    var recorded = EntityStore<Item>()
    recorded[1] = a
    #expect(recorded == EntityStore([a]))
    #expect(EntityStore([a, b]) != EntityStore([b, a]))
    #expect(EntityStore([a]) != EntityStore([b]))
  }

  @Test func equalityIgnoresTombstones() {
    var sparse = EntityStore([b, a])
    sparse[2] = nil
    #expect(sparse == EntityStore([a]))
  }
}
