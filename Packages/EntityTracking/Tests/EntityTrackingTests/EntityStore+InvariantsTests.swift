import Testing

@testable import EntityTracking

/// The invariant checker itself: silent on valid stores, loud (with the state) on each kind of
/// corrupted storage.
@Suite struct EntityStoreInvariantsTests {
  /// A store with a tombstone in the middle, an upsert, a deletion and an unchanged entity.
  func sample() -> EntityStore<Item> {
    var store = EntityStore((0..<5).map { Item(id: $0, value: $0) })
    store.modify(3) { $0.value = 33 }
    store[1] = nil
    return store
  }

  func violation(_ store: EntityStore<Item>) -> String? {
    do {
      try store.checkInvariants()
      return nil
    } catch {
      return error.description
    }
  }

  @Test func validStoresPass() {
    #expect(violation(EntityStore<Item>()) == nil)
    #expect(violation(sample()) == nil)
  }

  @Test func aPositionThatDisagreesWithItsSlotFails() throws {
    var store = sample()
    store.positions[3] = 4
    let message = try #require(violation(store))
    #expect(message.contains("positions[3] is 4, which holds 4"))
    #expect(message.contains("slots: [0, †, 2, 3, 4]"))
  }

  @Test func aWrongFirstLiveSlotFails() {
    var store = sample()
    store.firstLiveSlot = 2
    #expect(violation(store)?.contains("firstLiveSlot is 2") == true)
  }

  @Test func aTrailingTombstoneFails() {
    var store = sample()
    store.positions[4] = nil
    store.slots[4] = nil
    #expect(violation(store)?.contains("the last slot is a tombstone") == true)
  }

  @Test func anUpsertFlagWithoutItsLogEntryFails() {
    var store = sample()
    store.logIndexBySlot[2] = 0
    #expect(violation(store)?.contains("slot 2 names log entry 0") == true)
  }

  @Test func anIDBothUpsertedAndDeletedFails() {
    var store = sample()
    store.changeLog.append(-1)
    store.deletionLogIndex[3] = 2
    #expect(violation(store)?.contains("upserted 3 is indexed as a deletion") == true)
  }

  @Test func twoDeletedIDsOnOneLogEntryFail() {
    var store = sample()
    store.deletionLogIndex[7] = 1
    #expect(violation(store)?.contains("two deleted ids share log entry 1") == true)
  }

  @Test func aDeletionMissingFromItsIndexFails() {
    var store = sample()
    store.deletionLogIndex = [:]
    #expect(violation(store)?.contains("0 indexed deletions for 1 in the log") == true)
  }

  @Test func tooManyTombstonesFail() {
    var store = EntityStore((0..<40).map { Item(id: $0, value: $0) })
    for slot in 1..<39 {
      store.positions[slot] = nil
      store.slots[slot] = nil
    }
    #expect(violation(store)?.contains("38 tombstones for 2 live entities") == true)
  }
}
