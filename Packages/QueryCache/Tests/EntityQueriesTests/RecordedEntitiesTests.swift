import EntityTracking
import Testing

@testable import EntityQueries

/// The values last recorded, against which a change set's ids are judged.
@Suite struct RecordedEntitiesTests {
  @Test func eachIdIsJudgedAgainstItsRecordedValue() {
    var cards = EntityStore<Card>.board
    var recorded = RecordedEntities(cards)
    let card1 = cards[1]!
    let card3 = cards[3]!
    cards.modify(1) { $0.title = "edited" }
    cards[3] = nil
    cards[4] = Card(id: 4, columnID: 1, title: "new")
    cards.modify(2) { $0.title = "draft" }
    cards.modify(2) { $0.title = "beta" }  // changed back: no change

    let changes = recorded.changes(of: cards.drainChanges().lazy.map(\.id), in: cards)

    #expect(
      changes == [
        .update(from: card1, to: cards[1]!), .deletion(card3), .insertion(cards[4]!),
      ])
    #expect(Array(recorded.values) == Array(cards))
    #expect(!recorded.values.hasChanges)
  }

  @Test func idsRecordedWithTheirCurrentValuesChangeNothing() {
    var cards = EntityStore<Card>.board
    var recorded = RecordedEntities(cards)
    cards.modify(1) { $0.title = "edited" }
    #expect(recorded.changes(of: cards.changes.lazy.map(\.id), in: cards).count == 1)
    #expect(recorded.changes(of: cards.changes.lazy.map(\.id), in: cards).isEmpty)
  }

  @Test func anIdDeletedAndNeverRecordedIsNoChange() {
    var cards = EntityStore<Card>.board
    var recorded = RecordedEntities(cards)
    cards[9] = Card(id: 9, columnID: 1, title: "brief")
    cards[9] = nil
    #expect(cards.changes.deletions == [9])
    #expect(recorded.changes(of: cards.changes.lazy.map(\.id), in: cards).isEmpty)
  }

  @Test func comparingEverythingFindsDeletionsFirstThenTheStoresOrder() {
    var cards = EntityStore<Card>.board
    var recorded = RecordedEntities(cards)
    let card1 = cards[1]!
    let card3 = cards[3]!
    cards.merge(from: EntityStore([Card(id: 5, columnID: 2, title: "loaded")])) { $1 }
    cards.remove(1)
    cards.modify(3) { $0.columnID = 1 }
    cards.resetChanges()

    #expect(
      recorded.changes(toMatch: cards) == [
        .deletion(card1), .update(from: card3, to: cards[3]!), .insertion(cards[5]!),
      ])
    #expect(recorded.changes(toMatch: cards).isEmpty)
  }

  /// Exhaustive over small stores: after any sequence of edits, recording the change set
  /// leaves the recorded values equal to the store's, and one change per id whose value differs.
  @Test(arguments: 0..<4)
  func recordingAChangeSetCatchesUpWithTheStore(seed: Int) {
    var cards = EntityStore<Card>.board
    var recorded = RecordedEntities(cards)
    let before = Dictionary(uniqueKeysWithValues: cards.map { ($0.id, $0) })
    for step in 0..<(6 + seed) {
      let id = (step * (seed + 2)) % 5 + 1
      switch (step + seed) % 3 {
      case 0: cards[id] = Card(id: id, columnID: step % 3 + 1, title: "t\(step)")
      case 1: cards.modify(id) { $0.columnID = seed % 3 + 1 }
      default: cards[id] = nil
      }
    }
    let changes = recorded.changes(of: cards.changes.lazy.map(\.id), in: cards)
    #expect(
      Dictionary(uniqueKeysWithValues: recorded.values.map { ($0.id, $0) })
        == Dictionary(uniqueKeysWithValues: cards.map { ($0.id, $0) }))
    let differing = Set(before.keys).union(cards.ids).filter { before[$0] != cards[$0] }
    #expect(Set(changes.map(\.id)) == differing)
    #expect(changes.count == differing.count)
  }
}
