import Testing

@testable import EntityTracking

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
    expectInvariants(store)
  }

  @Test func removeWithoutRecordingLeavesNoChangeAndKeepsOthersRecorded() {
    var store = EntityStore([a, b, c])
    store.modify(1) { $0.value = 11 }
    #expect(store.removeWithoutRecording(2) == b)
    #expect(store.removeWithoutRecording(2) == nil)
    #expect(store.values == [Item(id: 1, value: 11), c])
    #expect(store.changes == [.upsert(1)])
    // The last entity: the tombstones at the end go with it.
    store.removeWithoutRecording(3)
    #expect(store.values == [Item(id: 1, value: 11)])
    #expect(store.changes == [.upsert(1)])
    expectInvariants(store)
  }

  @Test func removeWithoutRecordingTurnsARecordedUpsertIntoADeletion() {
    var store = EntityStore([a, b])
    store.modify(1) { $0.value = 11 }
    store.removeWithoutRecording(1)
    #expect(store.values == [b])
    #expect(store.changes == [.deletion(1)])
    expectInvariants(store)
  }

  @Test func removeWithoutRecordingCompactsLikeRemove() {
    var store = EntityStore((1...40).map { Item(id: $0, value: $0) })
    for id in 1...30 { store.removeWithoutRecording(id) }
    #expect(store.ids == Array(31...40))
    #expect(store.changes.isEmpty)
    expectInvariants(store)
  }

  @Test func restoreRecordsTheDifferenceDeletionsFirst() {
    var store = EntityStore([a, b, c])
    let saved = EntityStore([Item(id: 4, value: 40), a, Item(id: 2, value: 0)])
    store.restore(from: saved)
    #expect(store == saved)
    // NB: 1 stays (4 is inserted before it); 2 changed.
    #expect(store.changes == [.deletion(3), .upsert(4), .upsert(2)])
    expectInvariants(store)
  }

  @Test func restoreKeepsEarlierChangesInTheirPlace() {
    var store = EntityStore([a, b, c])
    store.modify(3) { $0.value = 0 }
    store[1] = nil
    store.restore(from: EntityStore([b, Item(id: 3, value: 0), a]))
    #expect(store.values == [b, Item(id: 3, value: 0), a])
    #expect(store.changes == [.upsert(3), .upsert(1)])
    expectInvariants(store)
  }

  @Test func restoringTheSameEntitiesRecordsNothing() {
    var same = EntityStore([a, b])
    same.restore(from: EntityStore([a, b]))
    #expect(same.changes.isEmpty)
    expectInvariants(same)
  }

  // MARK: - Undoing each kind of edit

  @Test func restoreUndoesAnInsertionWithADeletion() {
    var store = EntityStore([a, b])
    let saved = store
    store[3] = c
    _ = store.drainChanges()
    store.restore(from: saved)
    #expect(store.values == [a, b])
    #expect(store.changes == [.deletion(3)])
    expectInvariants(store)
  }

  @Test func restoreUndoesAnEditWithAnUpsertInPlace() {
    var store = EntityStore([a, b, c])
    let saved = store
    store.modify(2) { $0.value = 99 }
    _ = store.drainChanges()
    store.restore(from: saved)
    #expect(store.values == [a, b, c])
    #expect(store.changes == [.upsert(2)])
    expectInvariants(store)
  }

  @Test func restoreUndoesADeletionAtTheDeletedEntitysPlace() {
    var store = EntityStore([a, b, c])
    let saved = store
    store[2] = nil
    _ = store.drainChanges()
    store.restore(from: saved)
    #expect(store.values == [a, b, c])
    // NB: 1 and 3 stay where they are: only 2, between them, is written.
    #expect(store.changes == [.upsert(2)])
    expectInvariants(store)
  }

  @Test func restoreUndoesAMoveToTheEnd() {
    var store = EntityStore([a, b, c])
    let saved = store
    store[1] = nil
    store[1] = a  // a deleted, then inserted again: it goes last
    #expect(store.values == [b, c, a])
    _ = store.drainChanges()
    store.restore(from: saved)
    #expect(store.values == [a, b, c])
    // NB: undoing one move records that one entity, whatever the store's length.
    #expect(store.changes == [.upsert(1)])
    expectInvariants(store)
  }

  @Test func restoreUndoesASort() {
    var store = EntityStore([a, b, c])
    let saved = store
    store.sort { $0.value > $1.value }
    _ = store.drainChanges()
    store.restore(from: saved)
    #expect(store.values == [a, b, c])
    #expect(store.changes == [.upsert(1), .upsert(2)])
    expectInvariants(store)
  }

  @Test func restoreRedoesWhatItUndid() {
    var store = EntityStore([a, b, c])
    let before = store
    store[2] = nil
    store.modify(3) { $0.value = 33 }
    store[4] = Item(id: 4, value: 40)
    let after = store
    _ = store.drainChanges()
    store.restore(from: before)
    #expect(Array(store.drainChanges()) == [.deletion(4), .upsert(2), .upsert(3)])
    store.restore(from: after)
    #expect(store.values == after.values)
    #expect(Array(store.changes) == [.deletion(2), .upsert(3), .upsert(4)])
    expectInvariants(store)
  }

  @Test func restoreIgnoresTheChangesRecordedInTheSnapshot() {
    var store = EntityStore([a])
    store[2] = b  // recorded in the snapshot below, never drained from it
    let saved = store
    _ = store.drainChanges()
    store.restore(from: saved)
    #expect(store.changes.isEmpty)
    #expect(store == saved)
    expectInvariants(store)
  }

  @Test func restoreRecordsWhatTheEquivalentEditsRecord() {
    // NB: every pair of arrangements of up to three ids, the current one with and without
    // pending changes, against the store's own edits: deletions, then in the target's order an
    // in-place modification of each entity of the longest run kept in order, and a deletion
    // and an insertion of every other.
    var failures: [String] = []
    for current in arrangements(of: [0, 1, 2], values: [0]) {
      for pending in [false, true] {
        var store = EntityStore(current + (pending ? [Item(id: 3, value: 0)] : []))
        if pending {
          store[3] = nil
          if let first = current.first { store.modify(first.id) { $0.value = 1 } }
        }
        for target in arrangements(of: [0, 1, 2, 3], values: [0, 1]) {
          var restored = store
          restored.restore(from: EntityStore(target))
          let edited = restoredByEdits(store, to: target)
          if restored.values != target || restored.changes != edited.changes {
            failures.append(
              "\(store.values) (pending \(store.changes)) restored to \(target): "
                + "\(restored.values) \(restored.changes), the edits \(edited.changes)")
          }
          expectInvariants(restored)
        }
      }
    }
    #expect(failures.isEmpty, "\(failures.prefix(3))")
  }

  /// Every ordered selection of `ids` (the empty one included), each id with each of `values`.
  private func arrangements(of ids: [Int], values: [Int]) -> [[Item]] {
    var result: [[Item]] = [[]]
    func extend(_ prefix: [Item]) {
      for id in ids where !prefix.contains(where: { $0.id == id }) {
        for value in values {
          let next = prefix + [Item(id: id, value: value)]
          result.append(next)
          extend(next)
        }
      }
    }
    extend([])
    return result
  }

  /// `store` brought to `target` with ordinary edits, the way `restore(from:)` says it records.
  private func restoredByEdits(_ store: EntityStore<Item>, to target: [Item]) -> EntityStore<Item> {
    var edited = store
    for id in store.ids where !target.contains(where: { $0.id == id }) { edited.remove(id) }
    let keptOrder = edited.ids
    let stays = longestIncreasingRun(target.map { keptOrder.firstIndex(of: $0.id) ?? -1 })
    for offset in target.indices {
      let item = target[offset]
      if stays[offset] {
        edited.modify(item.id) { $0 = item }
      } else {
        edited.remove(item.id)
        edited.upsert(item)
      }
    }
    return edited
  }

  // MARK: - The longest run kept in order

  @Test func theRunKeptInOrderIsALongestIncreasingOne() {
    // NB: against a quadratic reference on every sequence of up to six values in -1...4.
    var failures: [String] = []
    var values: [Int] = []
    func check() {
      let stays = longestIncreasingRun(values)
      let kept = values.indices.filter { stays[$0] }.map { values[$0] }
      let isIncreasing = zip(kept, kept.dropFirst()).allSatisfy { $0 < $1 }
      if !isIncreasing || kept.contains(where: { $0 < 0 }) || kept.count != longest(values) {
        failures.append("\(values): kept \(kept), longest \(longest(values))")
      }
    }
    func extend(_ length: Int) {
      check()
      guard length < 6 else { return }
      for value in -1...4 {
        values.append(value)
        extend(length + 1)
        values.removeLast()
      }
    }
    extend(0)
    #expect(failures.isEmpty, "\(failures.prefix(3))")
  }

  private func longestIncreasingRun(_ values: [Int]) -> [Bool] {
    EntityStore<Item>.longestIncreasingRun(values)
  }

  /// The length of a longest strictly increasing run of the non-negative values, by dynamic
  /// programming.
  private func longest(_ values: [Int]) -> Int {
    var ending = [Int](repeating: 0, count: values.count)
    for i in values.indices where values[i] >= 0 {
      ending[i] = 1
      for j in 0..<i where values[j] >= 0 && values[j] < values[i] {
        ending[i] = max(ending[i], ending[j] + 1)
      }
    }
    return ending.max() ?? 0
  }
}
