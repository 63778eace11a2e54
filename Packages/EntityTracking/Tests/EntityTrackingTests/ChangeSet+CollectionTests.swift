import EntityTracking
import Testing

@Suite struct ChangeSetCollectionTests {
  @Test func isARandomAccessCollectionInFirstChangeOrder() {
    let changes: ChangeSet<Int> = [.upsert(3), .deletion(1), .upsert(2)]
    #expect(changes.count == 3)
    #expect(changes.first == .upsert(3))
    #expect(changes.last == .upsert(2))
    #expect(changes[1] == .deletion(1))
    #expect(changes.map(\.id) == [3, 1, 2])
    #expect(Array(changes.reversed().map(\.id)) == [2, 1, 3])
  }

  @Test func arrayLiteralRecordsInOrder() {
    let changes: ChangeSet<Int> = [.upsert(1), .deletion(2), .deletion(1)]
    #expect(Array(changes) == [.deletion(1), .deletion(2)])
  }
}
