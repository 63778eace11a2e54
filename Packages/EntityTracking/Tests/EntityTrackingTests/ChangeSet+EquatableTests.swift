import EntityTracking
import Testing

@Suite struct ChangeSetEquatableTests {
  @Test func equalityIsOrderSensitive() {
    let forward: ChangeSet<Int> = [.upsert(1), .upsert(2)]
    #expect(forward == [.upsert(1), .upsert(2)])
    #expect(forward != [.upsert(2), .upsert(1)])
    #expect(forward != [.upsert(1), .deletion(2)])
  }

  @Test func describesEachChangeWithItsSign() {
    let changes: ChangeSet<Int> = [.upsert(2), .deletion(1)]
    #expect(changes.description == "[+2, -1]")
    #expect(ChangeSet<Int>().description == "[]")
  }
}
