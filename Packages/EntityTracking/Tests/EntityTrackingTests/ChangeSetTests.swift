import EntityTracking
import Testing

@Suite struct ChangeSetTests {
  @Test func freshIsEmpty() {
    #expect(ChangeSet<Int>().isEmpty)
  }

  @Test func lastOperationWins() {
    var changes = ChangeSet<Int>()
    changes.recordUpsert(1)
    changes.recordDeletion(1)
    #expect(changes == ChangeSet(upserts: [], deletions: [1]))
    changes.recordUpsert(1)
    #expect(changes == ChangeSet(upserts: [1], deletions: []))
  }

  @Test func unionAppliesTheLaterSetLast() {
    var earlier = ChangeSet(upserts: [1, 2], deletions: [3])
    earlier.formUnion(ChangeSet(upserts: [3], deletions: [1]))
    #expect(earlier == ChangeSet(upserts: [2, 3], deletions: [1]))
  }
}
