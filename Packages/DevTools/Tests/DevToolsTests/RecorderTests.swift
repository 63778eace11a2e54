import DevTools
import Foundation
import ReduxCore
import ReduxCoreTesting
import Synchronization
import Testing

/// What the recorder keeps: every action with its source, outcome and state; within its
/// limits; in a session file that reads back, also after a crash.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct RecorderTests {
  @Test func everyActionIsRecordedWithWhoSentItWhatHappenedAndTheStateAfter() async throws {
    let recorder = NotesRecorder(app: "notes", clock: ManualClock()) { $0.undoSnapshot }
    let store = makeRecordedStore(recorder: recorder, capacity: 2)
    await store.dispatchWithResult(.add(id: 1, text: "one"))
    await store.dispatchWithResult(.echo("echoed"))
    await store.dispatchWithResult(.forbidden)
    store.pause()
    store.dispatch(.edit(id: 1, text: "held"))
    store.dispatch(.edit(id: 1, text: "held too"))
    #expect(!store.dispatch(.delete(id: 1)))  // the queue holds two: refused
    store.resume()
    await store.waitUntilIdle()

    let records = recorder.records()
    #expect(records.map(\.index) == Array(0...7))
    #expect(
      records.map { "\($0.name) \($0.source) \($0.outcome.rawValue)" } == [
        "@start recorder event",
        "add caller reduced",
        "echo caller reduced",
        "add middleware echo reduced",  // dispatched by echo, run right after it
        "forbidden caller stopped",
        "delete caller refused",
        "edit caller reduced",
        "edit caller reduced",
      ])
    #expect(records[4].detail == "guard")
    #expect(records[5].detail?.contains("queue full") == true)
    #expect(records[5].state == nil)
    #expect(try records[3].state?.decode([Note].self).map(\.text) == ["one", "echoed"])
    #expect(try records.last?.payload?.decode(NotesAction.self) == .edit(id: 1, text: "held too"))
    #expect(recorder.snapshot(at: 0) == [])
    #expect(recorder.snapshot(at: 7)?.first?.text == "held too")
  }

  @Test func eachRecordCarriesTheTimingsItsStagesLogged() async throws {
    let recorder = NotesRecorder(app: "notes", clock: ManualClock()) { $0.undoSnapshot }
    let timed = AnyMiddleware<NotesState, NotesAction>(id: "timed") { context in
      context.next()
      context.complete()
    }
    let reducer = AnyReducer<NotesState, NotesAction>(id: "counted") { context in
      context.complete()
    }
    let store = NotesStore(
      initialState: NotesState(), middlewares: [timed], reducers: [notesReducer(), reducer],
      inspector: recorder, onLog: { recorder.log($0) })
    recorder.start(from: store)
    await store.dispatchWithResult(.add(id: 1, text: "one"))
    await store.dispatchWithResult(.delete(id: 1))
    let records = recorder.records().dropFirst()
    #expect(
      records.map { $0.timings?.keys.sorted() } == [
        ["middleware timed", "reducer counted"], ["middleware timed", "reducer counted"],
      ])
    #expect(records.allSatisfy { ($0.timings?["middleware timed"] ?? -1) >= 0 })

    // Kept beside the entries, the timings leave with them: each record keeps its own.
    let few = NotesRecorder(app: "notes", limits: .init(capacity: 3), clock: ManualClock()) {
      $0.undoSnapshot
    }
    // NB: the second action's timings are not logged.
    let sometimes = NotesStore(
      initialState: NotesState(), middlewares: [timed], reducers: [notesReducer()],
      inspector: few,
      onLog: { entry in
        if case .middleware(_, .add(id: 2, _), _, _) = entry { return }
        few.log(entry)
      })
    few.start(from: sometimes)
    for id in 1...3 { await sometimes.dispatchWithResult(.add(id: id, text: "\(id)")) }
    few.record(.feature, name: "opened", source: "board")
    #expect(few.records().map(\.index) == [0, 2, 3, 4])
    #expect(
      few.records().map { $0.timings?.keys.sorted() } == [nil, nil, ["middleware timed"], nil])
  }

  @Test func theRingBufferKeepsItsLimitsOldestFirst() async throws {
    let byCount = NotesRecorder(
      app: "notes", limits: .init(capacity: 3), clock: ManualClock()
    ) { $0.undoSnapshot }
    let store = makeRecordedStore(recorder: byCount)
    for id in 1...5 { await store.dispatchWithResult(.add(id: id, text: "note \(id)")) }
    #expect(byCount.records().map(\.index) == [0, 3, 4, 5])  // the start is kept apart
    #expect(byCount.evictedCount == 2)
    #expect(byCount.snapshot(at: 2) == nil)

    let byBytes = NotesRecorder(
      app: "notes", limits: .init(maxBytes: 600), clock: ManualClock()
    ) { $0.undoSnapshot }
    let other = makeRecordedStore(recorder: byBytes)
    for id in 1...10 {
      await other.dispatchWithResult(.add(id: id, text: String(repeating: "x", count: 40)))
    }
    byBytes.flush()
    let kept = byBytes.records().dropFirst()
    #expect(kept.count < 10)
    #expect(kept.last?.index == 10)  // the newest stay
    #expect(byBytes.evictedCount == 10 - kept.count)
  }

  @Test func aPageReadsRowsAPageAtATimeAndOneRecordsStateAndDiffOnItsOwn() async throws {
    let recorder = NotesRecorder(
      app: "notes", limits: .init(capacity: 4), clock: ManualClock()
    ) { $0.undoSnapshot }
    let store = makeRecordedStore(recorder: recorder)
    for id in 1...6 { await store.dispatchWithResult(.add(id: id, text: "note \(id)")) }
    // Kept: the start, then #3…#6 (#1 and #2 evicted).
    #expect(recorder.summaries(after: -1, limit: 3).map(\.index) == [0, 3, 4])
    #expect(recorder.summaries(after: 0, limit: 10).map(\.index) == [3, 4, 5, 6])
    #expect(recorder.summaries(after: 4, limit: 10).map(\.index) == [5, 6])
    #expect(recorder.summaries(after: 6, limit: 10).isEmpty)
    #expect(recorder.summaries(after: -1, limit: 10).allSatisfy { $0.state == nil })
    // NB: no summary given: the rows show the payload.
    #expect(recorder.summaries(after: -1, limit: 10).allSatisfy { $0.summary == nil })

    let state = try #require(recorder.record(at: 5)?.state)
    #expect(String(decoding: try JSONEncoder().encode(state), as: UTF8.self).contains("note 5"))
    #expect(recorder.record(at: 2) == nil)  // evicted
    let added = try #require(recorder.diff(at: 5)?.changes)
    #expect(added.count == 1 && added[0].description.contains("note 5"))
    // The oldest kept record compares with the start, the last state kept before it.
    #expect(recorder.diff(at: 3)?.changes.count == 3)
    #expect(recorder.diff(at: 2) == nil)
  }

  @Test func aListenerGetsRowsWithoutStates() async throws {
    let recorder = NotesRecorder(app: "notes", clock: ManualClock()) { $0.undoSnapshot }
    let store = makeRecordedStore(recorder: recorder)
    let received = Mutex<[DevToolsRecord]>([])
    let token = recorder.addListener { batch in received.withLock { $0 += batch } }
    for id in 1...3 { await store.dispatchWithResult(.add(id: id, text: "note \(id)")) }
    recorder.flush()
    recorder.removeListener(token)
    let rows = received.withLock { $0 }
    #expect(rows.map(\.index) == [1, 2, 3])
    #expect(rows.allSatisfy { $0.state == nil && $0.payload != nil })
  }

  @Test func aSessionFileReadsBackAndSurvivesACrashUpToItsLastCompleteLine() async throws {
    let url = temporaryFile("session.jsonl")
    defer { try? FileManager.default.removeItem(at: url) }
    let writer = try DevToolsSessionWriter(url: url, app: "notes")
    let recorder = NotesRecorder(app: "notes", clock: ManualClock(), session: writer) {
      $0.undoSnapshot
    }
    let store = makeRecordedStore(recorder: recorder)
    for id in 1...3 { await store.dispatchWithResult(.add(id: id, text: "note \(id)")) }
    recorder.flush()
    writer.close()

    let session = try DevToolsSession(contentsOf: url)
    #expect(session.header.app == "notes")
    // NB: record 0, the state the recording started from, is what a replay starts from.
    #expect(session.records.map(\.index) == [0, 1, 2, 3])
    #expect(session.records == recorder.records())
    #expect(!session.isTruncated)

    // The app dies while writing the fourth line: the three before it read back.
    var bytes = try Data(contentsOf: url)
    bytes.append(Data(#"{"index":4,"kind":"action","name":"ad"#.utf8))
    let cut = try DevToolsSession(data: bytes)
    #expect(cut.records.map(\.index) == [0, 1, 2, 3])
    #expect(cut.isTruncated)
  }

  @Test func aMalformedSessionIsRefusedWithTheLineNumber() throws {
    let header = #"{"app":"notes","format":"reduxkit-devtools","version":1}"#
    let good =
      #"{"index":1,"kind":"action","name":"add","outcome":"reduced","source":"caller","time":0}"#
    #expect(throws: DevToolsSessionError.malformedLine(3, reason: "not JSON")) {
      try DevToolsSession(data: Data((header + "\n" + good + "\nnot json\n" + good + "\n").utf8))
    }
    #expect(throws: DevToolsSessionError.malformedLine(2, reason: "no 'name'")) {
      try DevToolsSession(
        data: Data((header + "\n" + #"{"index":1,"kind":"action"}"# + "\n").utf8))
    }
    #expect(throws: DevToolsSessionError.notASession("session")) {
      try DevToolsSession(data: Data("hello\n".utf8))
    }
    #expect(throws: DevToolsSessionError.unsupportedVersion(9)) {
      try DevToolsSession(
        data: Data(#"{"app":"x","format":"reduxkit-devtools","version":9}"#.utf8 + [0x0A]))
    }
  }

  /// A state projection whose encoding fails (a NaN, say).
  struct Unencodable: Codable, Sendable {
    struct Refused: Error, CustomStringConvertible {
      var description: String { "NaN is not JSON" }
    }
    func encode(to encoder: any Encoder) throws { throw Refused() }
    init() {}
    init(from decoder: any Decoder) throws {}
  }

  @Test func aStateThatDoesNotEncodeIsSaidInTheRecordNotDroppedInSilence() async throws {
    let recorder = DevToolsRecorder<NotesState, NotesAction, Unencodable>(
      app: "notes", clock: ManualClock()
    ) { _ in Unencodable() }
    let store = NotesStore(
      initialState: NotesState(), reducers: [notesReducer()], inspector: recorder)
    recorder.start(from: store)
    await store.dispatchWithResult(.add(id: 1, text: "note"))
    let record = try #require(recorder.records().last)
    #expect(record.outcome == .reduced)
    #expect(record.state == nil)
    #expect(record.payload != nil)
    #expect(record.detail == "state not recorded: NaN is not JSON")
  }
}
