import Testing

@testable import EntityTracking

/// The change set's invariant checker: silent on valid sets, loud on corrupted storage.
@Suite struct ChangeSetInvariantsTests {
  func violation(_ changes: ChangeSet<Int>) -> String? {
    do {
      try changes.checkInvariants()
      return nil
    } catch {
      return error.description
    }
  }

  @Test func validSetsOnBothSidesOfTheLinearSearchLimitPass() {
    let limit = ChangeSet<Int>.linearSearchLimit
    #expect(violation(ChangeSet()) == nil)
    #expect(violation(ChangeSet((0..<limit).map { .upsert($0) })) == nil)
    #expect(violation(ChangeSet((0...limit).map { .deletion($0) })) == nil)
  }

  @Test func anIDRecordedTwiceFails() {
    var changes: ChangeSet<Int> = [.upsert(1), .deletion(2)]
    changes.entries.append(.deletion(1))
    #expect(violation(changes)?.contains("1 is recorded twice") == true)
    #expect(violation(changes)?.contains("entries: [+1, -2, -1]") == true)
  }

  @Test func aSmallSetWithAnIndexFails() {
    var changes: ChangeSet<Int> = [.upsert(1)]
    changes.offsets[1] = 0
    #expect(violation(changes)?.contains("1 entries are indexed") == true)
  }

  @Test func aLargeSetWithAStaleIndexFails() {
    var changes = ChangeSet<Int>((0...ChangeSet<Int>.linearSearchLimit).map { .upsert($0) })
    changes.offsets[3] = 4
    #expect(violation(changes)?.contains("3 is indexed at the wrong offset") == true)
  }
}
