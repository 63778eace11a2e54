import EntityTracking
import Persistence
import Testing

@MainActor
@Suite struct StateWriterTests {
  let recorder = PersistRecorder()

  private func itemWriter() -> StateWriter<AppState> {
    StateWriter(keyPath: \.items, persist: recorder.persist("items") { "\($0.id)=\($0.name)" })
  }

  private func flush(_ writer: StateWriter<AppState>) async throws {
    let work = try #require(writer.flush())
    try await work()
  }

  @Test func coalescesByIdAcrossDrainsLastValueWins() async throws {
    let writer = itemWriter()
    var state = AppState()
    state.items.upsert(Item(id: 1, name: "a"))
    writer.drain(&state)
    state.items.modify(1) { $0.name = "b" }
    writer.drain(&state)
    state.items.modify(1) { $0.name = "c" }
    writer.drain(&state)
    #expect(writer.pendingCount == 1)

    try await flush(writer)
    #expect(recorder.calls == [.init(writer: "items", writes: ["1=c"], deletions: [])])
    #expect(writer.pendingCount == 0)
    #expect(writer.flush() == nil)
  }

  @Test func deletedThenReinsertedBeforeTheFlushIsOneWriteAndNoDeletion() async throws {
    let writer = itemWriter()
    var state = AppState()
    state.items.upsert(Item(id: 1, name: "saved"))
    writer.drain(&state)
    state.items.remove(1)
    writer.drain(&state)
    state.items.upsert(Item(id: 1, name: "back"))
    writer.drain(&state)

    try await flush(writer)
    #expect(recorder.calls == [.init(writer: "items", writes: ["1=back"], deletions: [])])
  }

  @Test func writtenThenDeletedBeforeTheFlushIsOneDeletion() async throws {
    let writer = itemWriter()
    var state = AppState()
    state.items.upsert(Item(id: 1, name: "brief"))
    writer.drain(&state)
    state.items.remove(1)
    writer.drain(&state)

    try await flush(writer)
    // NB: the writer cannot know whether an earlier flush stored the id, so it deletes it.
    #expect(recorder.calls == [.init(writer: "items", writes: [], deletions: ["1"])])
  }

  @Test func writesComeInTheOrderTheirIdsWereFirstChanged() async throws {
    let writer = itemWriter()
    var state = AppState()
    for id in [5, 3, 9] { state.items.upsert(Item(id: id, name: "v1")) }
    writer.drain(&state)
    state.items.upsert(Item(id: 7, name: "v1"))
    state.items.modify(3) { $0.name = "v2" }
    state.items.remove(9)
    writer.drain(&state)
    state.items.remove(5)
    writer.drain(&state)

    try await flush(writer)
    #expect(
      recorder.calls == [.init(writer: "items", writes: ["3=v2", "7=v1"], deletions: ["5", "9"])])
  }

  @Test func writesWithinOneDrainComeInTheOrderTheirIdsWereFirstChanged() async throws {
    let writer = itemWriter()
    var state = AppState()
    state.items.upsert(Item(id: 5, name: "v1"))
    state.items.upsert(Item(id: 3, name: "v1"))
    state.items.remove(5)
    state.items.upsert(Item(id: 5, name: "v2"))  // re-inserted last, first changed first
    state.items.upsert(Item(id: 8, name: "v1"))
    state.items.remove(8)
    writer.drain(&state)

    try await flush(writer)
    #expect(
      recorder.calls == [.init(writer: "items", writes: ["5=v2", "3=v1"], deletions: ["8"])])
  }

  @Test func drainingAnUnchangedStoreReportsNothing() {
    let writer = itemWriter()
    var state = AppState()
    state.items.upsert(Item(id: 1, name: "a"))
    #expect(writer.drain(&state))
    #expect(!writer.drain(&state))
    #expect(!state.items.hasChanges)
  }

  @Test func aFailedFlushIsPutBackUnderneathNewerChanges() async throws {
    let writer = itemWriter()
    var state = AppState()
    state.items.upsert(Item(id: 1, name: "a"))
    state.items.upsert(Item(id: 2, name: "a"))
    writer.drain(&state)
    recorder.failNext(1)
    let failing = try #require(writer.flush())
    #expect(writer.pendingCount == 0)

    // While the failing flush runs, item 2 changes again and item 3 appears.
    state.items.modify(2) { $0.name = "b" }
    state.items.upsert(Item(id: 3, name: "a"))
    writer.drain(&state)
    await #expect(throws: DiskError.self) { try await failing() }

    #expect(writer.pendingCount == 3)
    try await flush(writer)
    #expect(
      recorder.calls.last == .init(writer: "items", writes: ["1=a", "2=b", "3=a"], deletions: []))
  }
}
