import PropertyBased
import Testing

@testable import EntityTracking

@Suite struct ChangeSetTests {
  @Test func freshIsEmpty() {
    let changes = ChangeSet<Int>()
    #expect(changes.isEmpty)
    #expect(changes.upserts.isEmpty && changes.deletions.isEmpty)
    #expect(changes.change(for: 1) == nil)
  }

  @Test func lastOperationWinsAndTheFirstPlaceIsKept() {
    var changes = ChangeSet<Int>()
    changes.recordUpsert(1)
    changes.recordUpsert(2)
    changes.recordDeletion(1)
    #expect(changes == [.deletion(1), .upsert(2)])
    changes.recordUpsert(1)
    #expect(changes == [.upsert(1), .upsert(2)])
    #expect(changes.change(for: 1) == .upsert(1))
    #expect(changes.count == 2)
  }

  @Test func upsertsAndDeletionsEachKeepFirstChangeOrder() {
    let changes: ChangeSet<Int> = [.deletion(5), .upsert(3), .deletion(1), .upsert(4)]
    #expect(changes.upserts == [3, 4])
    #expect(changes.deletions == [5, 1])
    #expect(changes.change(for: 1) == .deletion(1))
  }

  @Test func initRecordsInOrder() {
    let changes = ChangeSet<Int>([.upsert(1), .upsert(2), .deletion(1)])
    #expect(Array(changes) == [.deletion(1), .upsert(2)])
  }

  @Test func unionAppliesTheLaterSetLastAndKeepsEarlierPlaces() {
    var earlier: ChangeSet<Int> = [.upsert(1), .upsert(2), .deletion(3)]
    earlier.formUnion([.upsert(4), .upsert(3), .deletion(1)])
    #expect(earlier == [.deletion(1), .upsert(2), .upsert(3), .upsert(4)])
  }

  @Test func recordingAgreesWithTheReferenceModel() async {
    for lists in [Self.changeLists, Self.longChangeLists] {
      await propertyCheck(count: 200, input: lists) { changes in
        var changeSet = ChangeSet<Int>()
        var model = ReferenceModel()
        for change in changes {
          switch change {
          case .upsert(let id): changeSet.recordUpsert(id)
          case .deletion(let id): changeSet.recordDeletion(id)
          }
          model.record(change)
          expectInvariants(changeSet)
        }
        #expect(Array(changeSet) == model.changes)
        #expect(changeSet == ChangeSet(changes))
        for id in 0..<Self.longIDs {
          #expect(changeSet.change(for: id) == model.changes.first { $0.id == id })
        }
        #expect(changeSet.upserts == model.changes.compactMap { Self.upsertedID($0) })
      }
    }
  }

  @Test func unionAgreesWithRecordingTheLaterChangesInOrder() async {
    for lists in [Self.changeLists, Self.longChangeLists] {
      await propertyCheck(count: 200, input: lists, lists) { earlier, later in
        var union = ChangeSet(earlier)
        union.formUnion(ChangeSet(later))
        expectInvariants(union)
        var model = ReferenceModel()
        for change in earlier + later { model.record(change) }
        #expect(Array(union) == model.changes)
      }
    }
  }

  @Test func unionIsAssociativeAndHasTheEmptySetAsIdentity() async {
    for lists in [Self.changeLists, Self.longChangeLists] {
      await propertyCheck(count: 100, input: lists, lists, lists) { first, second, third in
        let (a, b, c) = (ChangeSet(first), ChangeSet(second), ChangeSet(third))
        #expect(Self.union(Self.union(a, b), c) == Self.union(a, Self.union(b, c)))
        #expect(Self.union(a, ChangeSet()) == a)
        #expect(Self.union(ChangeSet(), a) == a)
        #expect(Self.union(a, a) == a)
      }
    }
  }

  @Test func crossingTheLinearSearchLimitKeepsEveryChangeReachable() {
    let limit = ChangeSet<Int>.linearSearchLimit
    for count in (limit - 1)...(limit + 2) {
      var changes = ChangeSet<Int>()
      for id in 0..<count { changes.recordUpsert(id) }
      changes.recordDeletion(0)
      changes.recordDeletion(count - 1)
      expectInvariants(changes)
      #expect(changes.count == count)
      #expect(changes.change(for: 0) == .deletion(0))
      #expect(changes.change(for: count - 1) == .deletion(count - 1))
      #expect(changes.change(for: count) == nil)
      expectInvariants(ChangeSet(uniqueChanges: Array(changes)))
    }
  }

  @Test func everyPairOfShortChangeListsUnitesAsTheModelSays() {
    let alphabet: [Change] = [.upsert(0), .deletion(0), .upsert(1), .deletion(1)]
    var lists: [[Change]] = [[]]
    for _ in 0..<3 {
      lists += lists.filter { $0.count == lists.last!.count }.flatMap { list in
        alphabet.map { list + [$0] }
      }
    }
    var failures: [String] = []
    for earlier in lists {
      for later in lists {
        var model = ReferenceModel()
        for change in earlier + later { model.record(change) }
        let union = Self.union(ChangeSet(earlier), ChangeSet(later))
        if Array(union) != model.changes { failures.append("\(earlier) ∪ \(later) gave \(union)") }
      }
    }
    #expect(failures.isEmpty, "\(failures.prefix(3))")
  }

  /// Up to 20 changes of 6 ids: below the linear-search limit.
  static let changeLists = Gen.int(in: 0...11).map { code -> Change in
    code < 6 ? .upsert(code) : .deletion(code - 6)
  }.array(of: 0...20)

  static let longIDs = 30

  /// Up to 80 changes of 30 ids: across the linear-search limit.
  static let longChangeLists = Gen.int(in: 0...(2 * longIDs - 1)).map { code -> Change in
    code < longIDs ? .upsert(code) : .deletion(code - longIDs)
  }.array(of: 0...80)

  static func union(_ earlier: ChangeSet<Int>, _ later: ChangeSet<Int>) -> ChangeSet<Int> {
    var union = earlier
    union.formUnion(later)
    return union
  }

  static func upsertedID(_ change: Change) -> Int? {
    guard case .upsert(let id) = change else { return nil }
    return id
  }
}
