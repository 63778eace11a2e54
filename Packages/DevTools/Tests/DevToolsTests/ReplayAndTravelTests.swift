import DevTools
import Foundation
import ReduxCore
import ReduxCoreTesting
import Testing

/// Replaying a session to find where a build diverges, and travelling through a live store's
/// recorded states.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct ReplayAndTravelTests {
  /// Records the same short session every test starts from: four notes, an edit, a delete.
  func recordSession() async throws -> (NotesStore, NotesRecorder, DevToolsSession) {
    let recorder = NotesRecorder(app: "notes", clock: ManualClock()) { $0.undoSnapshot }
    let store = makeRecordedStore(recorder: recorder)
    for id in 1...4 { await store.dispatchWithResult(.add(id: id, text: "note \(id)")) }
    await store.dispatchWithResult(.edit(id: 2, text: "second, edited"))
    await store.dispatchWithResult(.delete(id: 3))
    await store.dispatchWithResult(.forbidden)
    var lines = Data()
    for record in recorder.records() {
      lines.append(try JSONEncoder().encode(record))
      lines.append(0x0A)
    }
    let header = try JSONEncoder().encode(DevToolsSessionHeader(app: "notes"))
    let session = try DevToolsSession(data: header + [0x0A] + lines)
    return (store, recorder, session)
  }

  @Test func replayingWithTheSameReducersMatchesEveryRecordedState() async throws {
    let (_, _, session) = try await recordSession()
    let report = try await DevToolsReplay.run(
      session, as: NotesAction.self,
      makeStore: { start in replayStore(from: try start?.decode([Note].self) ?? []) },
      snapshot: { $0.undoSnapshot })
    #expect(report.divergence == nil)
    #expect(report.replayed == 7)  // the stopped action is replayed too: a middleware stopped it
    #expect(report.skipped == 0)
  }

  @Test func replayFindsTheFirstActionWhoseStateDiffers() async throws {
    let (_, _, session) = try await recordSession()
    let report = try await DevToolsReplay.run(
      session, as: NotesAction.self,
      makeStore: { start in replayStore(from: try start?.decode([Note].self) ?? [], bug: true) },
      snapshot: { $0.undoSnapshot })
    let divergence = try #require(report.divergence)
    #expect(divergence.index == 5)
    #expect(divergence.name == "edit")
    #expect(divergence.diff.changes.map(\.path) == ["[id=2].text"])
    #expect(divergence.diff.changes.first?.after == .string("SECOND, EDITED"))
    #expect(report.replayed == 5)  // stopped there
  }

  @Test func aSessionFromAnotherBuildNamesTheActionItCannotRead() async throws {
    let header = #"{"app":"notes","format":"reduxkit-devtools","version":1}"#
    let start =
      #"{"index":0,"kind":"action","name":"@start","outcome":"event","source":"recorder","time":0,"state":[]}"#
    let unknown =
      #"{"index":1,"kind":"action","name":"archive","payload":{"archive":{"id":1}},"outcome":"reduced","source":"caller","time":0,"state":[]}"#
    let session = try DevToolsSession(
      data: Data([header, start, unknown, ""].joined(separator: "\n").utf8))
    await #expect(throws: DevToolsSessionError.unknownAction(line: 3, name: "archive")) {
      try await DevToolsReplay.run(
        session, as: NotesAction.self, makeStore: { _ in replayStore(from: []) },
        snapshot: { $0.undoSnapshot })
    }
  }

  @Test func travellingShowsARecordedStateHoldsNewActionsAndResumesThePresent() async throws {
    let (store, recorder, _) = try await recordSession()
    let travel = DevToolsTimeTravel(store: store, recorder: recorder) { replayStore(from: $0) }
    try travel.jump(to: 2)
    #expect(store.isPaused)
    #expect(store.notes.map(\.text) == ["note 1", "note 2"])
    try travel.step(by: -1)
    #expect(store.notes.map(\.id) == [1])
    try travel.step(by: 3)
    #expect(travel.position == 4)
    #expect(store.notes.count == 4)
    #expect(throws: DevToolsTravelError.notKept(99)) { try travel.jump(to: 99) }

    // An action dispatched meanwhile waits, and runs on the present once resumed.
    let later = Task { await store.dispatchWithResult(.add(id: 9, text: "later")).notes }
    try travel.jump(to: 0)
    #expect(store.notes.isEmpty)
    travel.resume()
    #expect(await later.value.map(\.id) == [1, 2, 4, 9])
    #expect(travel.position == nil)
  }

  @Test func skippingAnActionRecomputesTheStateWithoutIt() async throws {
    let (store, recorder, _) = try await recordSession()
    let travel = DevToolsTimeTravel(store: store, recorder: recorder) { replayStore(from: $0) }
    try await travel.skip(6)  // the delete of note 3
    #expect(store.notes.map(\.id) == [1, 2, 3, 4])
    #expect(store.notes[1].text == "second, edited")
    try await travel.skip(2)  // and the add of note 2: its edit then finds nothing
    #expect(store.notes.map(\.id) == [1, 3, 4])
    try await travel.skip(6)  // the delete is back
    #expect(store.notes.map(\.id) == [1, 4])
    #expect(travel.skipped == [2])
    travel.resume()
    #expect(await store.dispatchWithResult(.add(id: 5, text: "five")).notes.map(\.id) == [1, 4, 5])
  }

  /// Once the recorder's limits evicted entries, a skip recomputes from the oldest state kept,
  /// never from the start with only the actions kept (which made up a board without the
  /// evicted actions' cards, and the app saved it); an entry at or before that state is refused
  /// in words, and nothing changes.
  @Test func aSkipAfterEvictionRecomputesFromTheOldestStateKept() async throws {
    let recorder = NotesRecorder(app: "notes", limits: .init(capacity: 4), clock: ManualClock()) {
      $0.undoSnapshot
    }
    let store = makeRecordedStore(recorder: recorder)
    for id in 1...8 { await store.dispatchWithResult(.add(id: id, text: "note \(id)")) }
    #expect(recorder.evictedCount == 4)  // #5 to #8 kept
    let travel = DevToolsTimeTravel(store: store, recorder: recorder) { replayStore(from: $0) }
    try await travel.skip(8)
    #expect(store.notes.map(\.id) == Array(1...7))
    await #expect(throws: DevToolsTravelError.beforeOldestKept(5, oldest: 5)) {
      try await travel.skip(5)
    }
    await #expect(throws: DevToolsTravelError.beforeOldestKept(2, oldest: 5)) {
      try await travel.skip(2)
    }
    #expect(travel.skipped == [8])
    #expect(store.notes.map(\.id) == Array(1...7))
    try await travel.skip(6)
    #expect(store.notes.map(\.id) == [1, 2, 3, 4, 5, 7])
    travel.resume()
    #expect(
      await store.dispatchWithResult(.add(id: 9, text: "nine")).notes.map(\.id)
        == [1, 2, 3, 4, 5, 7, 9])
  }

  /// After a skip, jump and step show the recomputed states (the recorded ones still hold the
  /// skipped action); before the skipped entry, the recorded ones.
  @Test func stepsAfterASkipShowTheRecomputedStates() async throws {
    let (store, recorder, _) = try await recordSession()
    let travel = DevToolsTimeTravel(store: store, recorder: recorder) { replayStore(from: $0) }
    try await travel.skip(2)  // the add of note 2
    try travel.jump(to: 4)
    #expect(store.notes.map(\.id) == [1, 3, 4])
    try travel.step(by: -2)  // #2 itself: the state without it
    #expect(travel.position == 2)
    #expect(store.notes.map(\.id) == [1])
    try travel.step(by: 4)  // #6, the delete of note 3
    #expect(store.notes.map(\.id) == [1, 4])
    try travel.jump(to: 1)
    #expect(store.notes.map(\.id) == [1])
    travel.resume()
    #expect(store.notes.map(\.id) == [1, 4])
  }
}
