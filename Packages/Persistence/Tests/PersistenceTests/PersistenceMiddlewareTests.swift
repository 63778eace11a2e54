import EntityTracking
import InMemoryLogging
import Logging
import Persistence
import ReduxCoreTesting
import Testing

/// The flush schedule and the batch contract, on a test clock.
@MainActor
@Suite struct PersistenceMiddlewareTests {
  @Test func flushesOneDebounceAfterTheLastChange() async {
    var harness = Harness()
    harness.reduce { $0.items.upsert(Item(id: 1, name: "a")) }
    await harness.advance(by: .milliseconds(200))
    harness.reduce { $0.items.modify(1) { $0.name = "b" } }
    await harness.advance(by: .milliseconds(249))
    #expect(harness.recorder.calls.isEmpty)

    await harness.advance(by: .milliseconds(1), thenAwaitCall: 1)
    #expect(harness.recorder.calls == [.init(writer: "items", writes: ["1=b"], deletions: [])])
    #expect(harness.persistence.status.lastFlush?.committedAt == .milliseconds(450))
    #expect(harness.persistence.status.pendingCount == 0)
  }

  /// Out-of-range timings do not trap the app: they are clamped, and each change is logged.
  @Test func outOfRangeTimingsAreClampedAndLogged() {
    let logs = InMemoryLogHandler()
    let persistence = PersistenceMiddleware<AppState>(
      writers: [], debounce: .milliseconds(-1), maxWait: .milliseconds(-5),
      retry: RetryPolicy(initialDelay: .zero), clock: ManualClock(), logger: logs.logger)
    #expect(persistence.debounce == .zero && persistence.maxWait == .zero)
    #expect(
      logs.messages(at: .warning) == [
        "RetryPolicy: initialDelay 0.0 seconds would retry without waiting; using 0.5 seconds",
        "PersistenceMiddleware: debounce -0.001 seconds is negative; using 0 seconds",
        "PersistenceMiddleware: maxWait -0.005 seconds is shorter than debounce; using 0.0 seconds",
      ])
    let valid = InMemoryLogHandler()
    _ = PersistenceMiddleware<AppState>(writers: [], clock: ManualClock(), logger: valid.logger)
    #expect(valid.messages(at: .warning).isEmpty)
  }

  @Test func tenUpdatesToOneIdInAWindowAreOneRowWrite() async {
    var harness = Harness()
    for revision in 1...10 {
      harness.reduce { $0.items.upsert(Item(id: 1, name: "r\(revision)")) }
      await harness.advance(by: .milliseconds(10))
    }
    await harness.advance(by: .milliseconds(250), thenAwaitCall: 1)
    #expect(harness.recorder.calls == [.init(writer: "items", writes: ["1=r10"], deletions: [])])
    #expect(harness.persistence.status.lastFlush?.changes == 1)
  }

  @Test func aSteadyStreamOfChangesIsFlushedWithinMaxWait() async {
    var harness = Harness()
    // One change every 100 ms for 3 s: the debounce (250 ms) alone would never fire.
    var drainedAt: [Int: Duration] = [:]
    var flushedAt: [Int: Duration] = [:]
    for tick in 0..<30 {
      let now = Duration.milliseconds(100 * tick)
      harness.reduce { $0.items.upsert(Item(id: tick, name: "t")) }
      drainedAt[tick] = now
      let before = harness.recorder.calls.count
      let flushDue = tick % 10 == 9  // the 1 s deadlines fall on ticks 10, 20, 30
      await harness.advance(by: .milliseconds(100), thenAwaitCall: flushDue ? before + 1 : nil)
      for call in harness.recorder.calls[before...] {
        for write in call.writes {
          flushedAt[Int(write.prefix { $0 != "=" })!] = now + .milliseconds(100)
        }
      }
    }
    #expect(harness.recorder.calls.count == 3)
    #expect(flushedAt.count == 30)
    for (id, flushed) in flushedAt {
      #expect(flushed - drainedAt[id]! <= harness.persistence.maxWait, "item \(id)")
    }
  }

  @Test func flushesWritersInRegistrationOrderInOneBatch() async throws {
    var harness = Harness()
    harness.reduce { state in
      state.items.upsert(Item(id: 1, name: "a"))
      state.tags.upsert(Tag(id: "red"))
    }
    try await harness.persistence.flush()
    #expect(harness.recorder.calls.map(\.writer) == ["tags", "items"])
    let report = try #require(harness.persistence.status.lastFlush)
    #expect(report.number == 1 && report.changes == 2 && report.committedAt == .zero)
  }

  @Test func flushReturnsOnceEverythingDrainedBeforeItIsPersisted() async throws {
    var harness = Harness()
    try await harness.persistence.flush()
    #expect(harness.recorder.calls.isEmpty)

    harness.reduce { $0.items.upsert(Item(id: 1, name: "a")) }
    try await harness.persistence.flush()
    #expect(harness.recorder.calls.count == 1)
    // The timers were cancelled with the flush: nothing is written twice.
    await harness.advance(by: .seconds(5))
    #expect(harness.recorder.calls.count == 1)
  }

  @Test func flushesNeverOverlapAndChangesDuringAFlushGoIntoTheNext() async throws {
    var harness = Harness()
    harness.reduce { $0.items.upsert(Item(id: 1, name: "a")) }
    harness.recorder.hold()
    await harness.advance(by: .milliseconds(250))
    await harness.recorder.waitForCalls(1)
    #expect(harness.persistence.status.isFlushing)

    // Changes while the flush is held; an explicit flush must wait for the running one.
    harness.reduce { $0.items.modify(1) { $0.name = "b" } }
    harness.reduce { $0.items.upsert(Item(id: 2, name: "a")) }
    #expect(harness.persistence.status.pendingCount == 2)
    let persistence = harness.persistence
    let explicit = Task { try await persistence.flush() }
    await harness.advance(by: .milliseconds(250))
    harness.recorder.release()
    try await explicit.value
    await harness.persistence.waitUntilIdle()

    #expect(harness.recorder.mostRunning == 1)
    #expect(harness.recorder.calls.map(\.writes) == [["1=a"], ["1=b", "2=a"]])
    #expect(harness.persistence.status.pendingCount == 0)
    #expect(harness.persistence.status.lastFlush?.number == 2)
  }

  @Test func withABackendEveryWritersBatchIsCommittedInOneTransaction() async throws {
    let backend = CommitRecorder()
    let persistence = backend.middleware()
    var state = AppState()
    state.tags.upsert(Tag(id: "red"))
    state.items.upsert(Item(id: 1, name: "a"))
    state.items.upsert(Item(id: 2, name: "b"))
    persistence.afterReduce(state: &state)
    state.items.remove(2)
    persistence.afterReduce(state: &state)

    try await persistence.flush()

    // One commit, with the writers' batches in registration order (leaf entities first); the
    // item inserted and deleted in another drain is a deletion (it may have been stored).
    #expect(
      backend.commits == [
        [
          .init(writer: "tags", writes: ["red"], deletions: []),
          .init(writer: "items", writes: ["1=a"], deletions: ["2"]),
        ]
      ])
    #expect(persistence.status.lastFlush?.changes == 3)
  }

  @Test func withABackendAFailedCommitKeepsEveryWritersBatch() async throws {
    let backend = CommitRecorder()
    let persistence = backend.middleware()
    var state = AppState()
    state.tags.upsert(Tag(id: "red"))
    state.items.upsert(Item(id: 1, name: "a"))
    persistence.afterReduce(state: &state)
    backend.failNext(1)

    await #expect(throws: PersistenceMiddlewareError.self) { try await persistence.flush() }
    #expect(persistence.status.pendingCount == 2)
    // A newer change coalesces over the failed batch; the retry commits both writers again.
    state.items.modify(1) { $0.name = "b" }
    persistence.afterReduce(state: &state)
    try await persistence.flush()

    #expect(backend.commits.count == 2)
    #expect(
      backend.commits.last == [
        .init(writer: "tags", writes: ["red"], deletions: []),
        .init(writer: "items", writes: ["1=b"], deletions: []),
      ])
    #expect(persistence.status.pendingCount == 0)
  }

  @Test func aWriterOfAnotherBackendPersistsOnItsOwnBeforeTheCommit() async throws {
    let backend = CommitRecorder()
    let other = CommitRecorder()
    let persistence = PersistenceMiddleware<AppState>(
      backend: backend,
      writers: [
        other.writer("tags", \.tags) { $0.id },
        backend.writer("items", \.items) { "\($0.id)=\($0.name)" },
      ], clock: ManualClock())
    var state = AppState()
    state.tags.upsert(Tag(id: "red"))
    state.items.upsert(Item(id: 1, name: "a"))
    persistence.afterReduce(state: &state)

    try await persistence.flush()

    #expect(other.commits == [[.init(writer: "tags", writes: ["red"], deletions: [])]])
    #expect(backend.commits == [[.init(writer: "items", writes: ["1=a"], deletions: [])]])
  }

  @Test func withoutATransactionAFailedWriterKeepsItsBatchAndTheLaterOnes() async throws {
    let recorder = PersistRecorder()
    let failing = PersistRecorder()
    failing.failNext(1)
    let persistence = PersistenceMiddleware<AppState>(
      writers: [
        StateWriter(keyPath: \.tags, persist: recorder.persist("tags") { $0.id }),
        StateWriter(keyPath: \.items, persist: failing.persist("items") { "\($0.id)" }),
      ], clock: ManualClock())
    var state = AppState()
    state.tags.upsert(Tag(id: "red"))
    state.items.upsert(Item(id: 1, name: "a"))
    persistence.afterReduce(state: &state)

    do {
      try await persistence.flush()
      Issue.record("the flush succeeded")
    } catch {}
    #expect(persistence.status.pendingCount == 1)
    try await persistence.shutdown()
    #expect(recorder.calls.count == 1)  // the tag was written once, never again
    #expect(failing.calls.count == 2)
  }

  @Test func afterReduceWithNothingChangedTouchesNoTimer() async {
    var harness = Harness()
    harness.reduce { _ in }
    await harness.advance(by: .seconds(5))
    #expect(harness.recorder.calls.isEmpty)
    #expect(harness.persistence.status.lastFlush == nil)
  }
}
