import EntityTracking
import Synchronization
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

  @Test("a store and its copy, changes drained, are equal without comparing entities")
  func sharedStorageIsEqualInConstantTime() {
    let comparisons = Counter()
    let entities = (0..<1_000).map { Counted(id: $0, counter: comparisons) }
    let store = EntityStore(entities)
    var drained = store
    _ = drained.drainChanges()
    #expect(drained == store)
    #expect(comparisons.value == 0)

    // Other storage, the same entities: compared one by one.
    #expect(EntityStore(entities) == store)
    #expect(comparisons.value == 1_000)
    var changed = store
    changed[999] = Counted(id: 999, counter: comparisons, mark: 1)
    #expect(changed != store)
  }
}

/// Counts the comparisons of ``Counted`` values.
final class Counter: Sendable {
  private let count = Mutex(0)
  var value: Int { count.withLock { $0 } }
  func add() { count.withLock { $0 += 1 } }
}

/// An entity whose comparisons are counted.
struct Counted: Identifiable, Equatable, Sendable {
  let id: Int
  let counter: Counter
  var mark = 0

  static func == (lhs: Counted, rhs: Counted) -> Bool {
    lhs.counter.add()
    return lhs.id == rhs.id && lhs.mark == rhs.mark
  }
}
