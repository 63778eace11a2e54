import EntityTracking
import InMemoryLogging
import Logging
import Persistence
import Testing

/// The loop warning, shutdown, and release.
@MainActor
@Suite struct PersistenceLifecycleTests {
  @Test func warnsOncePerFlushWindowWhenDrainsExceedTheThreshold() async throws {
    var harness = Harness(loopThreshold: 20)
    for id in 0..<50 { harness.reduce { $0.items.upsert(Item(id: id, name: "loop")) } }
    #expect(
      harness.logs.messages(at: .warning) == [
        "21 drains before one flush (threshold 20): is an action dispatching itself in a loop?"
      ])

    try await harness.persistence.flush()
    for id in 0..<20 { harness.reduce { $0.items.upsert(Item(id: id, name: "calm")) } }
    #expect(harness.logs.messages(at: .warning).count == 1)
    for id in 0..<5 { harness.reduce { $0.items.upsert(Item(id: id, name: "loop again")) } }
    #expect(harness.logs.messages(at: .warning).count == 2)
  }

  @Test func shutdownFlushesEverythingAndRefusesLaterWork() async throws {
    var harness = Harness()
    harness.reduce { $0.items.upsert(Item(id: 1, name: "a")) }
    try await harness.persistence.shutdown()
    #expect(harness.recorder.calls.count == 1)
    #expect(harness.persistence.status.isShutdown)

    harness.reduce { $0.items.upsert(Item(id: 2, name: "late")) }
    #expect(harness.state.items.hasChanges)  // not drained: the app still holds the change
    #expect(harness.persistence.status.pendingCount == 0)
    #expect(
      harness.logs.messages(at: .error) == [
        "Changes after shutdown are not persisted: persistence is shut down"
      ])
    guard case .shutdown? = await harness.flushError() else {
      Issue.record("flush() after shutdown did not throw .shutdown")
      return
    }
    await harness.advance(by: .seconds(5))
    #expect(harness.recorder.calls.count == 1)
  }

  @Test func aFailedShutdownKeepsTheChangesForAnotherTry() async throws {
    var harness = Harness()
    harness.reduce { $0.items.upsert(Item(id: 1, name: "a")) }
    harness.recorder.failNext(1)
    do {
      try await harness.persistence.shutdown()
      Issue.record("shutdown hid the failure")
    } catch {}
    #expect(harness.persistence.status.pendingCount == 1)
    try await harness.persistence.shutdown()
    #expect(harness.recorder.calls.count == 2)
    #expect(harness.persistence.status.pendingCount == 0)
  }

  @Test func releasingWithUnpersistedChangesIsLogged() {
    let logs = InMemoryLogHandler()
    do {
      let persistence = PersistenceMiddleware<AppState>(
        writers: [StateWriter(keyPath: \.items) { _, _ in }], logger: logs.logger)
      var state = AppState()
      state.items.upsert(Item(id: 1, name: "a"))
      persistence.afterReduce(state: &state)
    }
    #expect(
      logs.messages(at: .error) == [
        "Persistence released with 1 unpersisted changes: call shutdown() before releasing it"
      ])
  }
}
