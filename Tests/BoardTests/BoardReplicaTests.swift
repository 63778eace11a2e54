import Foundation
import Logging
import ReduxCoreTesting
import ReduxKit
import Synchronization
import Testing

@testable import BoardCore

/// `board --server`, offline first: the board a server keeps, replicated in a file of this
/// machine. Against an in-memory remote that keeps the sync contract (`InMemorySyncRemote`),
/// which can be cut off; the delays between attempts run on a manual clock.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct BoardReplicaTests {
  let remote = InMemorySyncRemote()
  let clock = ManualClock()
  let folder: TemporaryFolder
  let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

  init() throws {
    folder = try TemporaryFolder()
  }

  /// A board named `name` (its new ids begin with it) on the replica file `file`.
  func connect(_ name: String = "board", file: String? = nil) async throws -> BoardSession {
    let ids = Mutex(0)
    return try await BoardSession.connect(
      replicaAt: folder.file("\(file ?? name).sqlite").path, remote: remote, clock: clock,
      now: { Date(timeIntervalSince1970: 1_800_000_000) },
      newID: {
        ids.withLock { id in
          id += 1
          return "\(name)-\(id)"
        }
      }, logger: logger)
  }

  func run(_ session: BoardSession, _ line: String) async throws -> Reply {
    await session.run(try #require(try CommandParser.parse(line)))
  }

  func replica(_ session: BoardSession) throws -> BoardReplica {
    guard case .server(let replica) = session.storage else { throw CancellationError() }
    return replica
  }

  /// A column and a card another client made on the server.
  func seed() async {
    await remote.write(#"{"id":"todo","name":"Todo"}"#, id: "todo", in: "columns", by: "other")
    await remote.write(#"{"id":"done","name":"Done"}"#, id: "done", in: "columns", by: "other")
    await remote.write(
      #"{"id":"a","columnID":"todo","title":"Write","notes":"","tags":[],"createdAt":0,"updatedAt":0}"#,
      id: "a", in: "cards", by: "other")
  }

  func titles(on remote: InMemorySyncRemote) async throws -> [String: String] {
    try await remote.rows(of: "cards").mapValues { json in
      try JSONDecoder().decode(ReplicaCard.self, from: Data(json.utf8)).title
    }
  }

  @Test func theServersBoardIsShownAndEveryChangeReachesIt() async throws {
    await seed()
    let session = try await connect()
    #expect(try await run(session, "list").text == "Todo (1)\n  #1 Write\nDone (0)")
    #expect(
      try await run(session, "add Todo Test it").text == #"added #2 "Test it" to Todo (saved)"#)
    #expect(try await run(session, "move 1 Done").text == "moved #1 to Done (saved)")
    _ = try await run(session, "column add Later")
    _ = try await run(session, "title 2 Test it well")
    #expect(try await replica(session).sync())
    #expect(try await titles(on: remote) == ["a": "Write", "board-1": "Test it well"])
    #expect(await remote.version(of: "a", in: "cards") == 2)
    #expect(await remote.rows(of: "columns").count == 3)
    #expect(try StatusLine.server(replica(session)) == ("synced", false))
    try await session.shutdown()
  }

  @Test func offlineEditsAreSavedCountedKeptThroughARestartAndSentWhenTheServerReturns()
    async throws
  {
    await seed()
    var session = try await connect()
    await remote.setReachable(false)
    _ = try await run(session, "add Todo Offline one")
    _ = try await run(session, "title 1 Written offline")
    #expect(try await replica(session).sync() == false)
    #expect(try replica(session).pendingChanges == 2)
    #expect(try StatusLine.server(replica(session)) == ("offline — 2 change(s) to send", true))
    #expect(try await run(session, "status").text == "offline — 2 change(s) to send")
    #expect(
      try await run(session, "add Done Offline two").text
        == #"added #3 "Offline two" to Done (saved; offline — 3 change(s) to send)"#)
    try await session.shutdown()

    // Started again while the server is down: the board is the file's, edits and all.
    session = try await connect()
    #expect(try replica(session).isOffline)
    #expect(try replica(session).pendingChanges == 3)
    #expect(
      try await run(session, "list").text
        == "Todo (2)\n  #1 Written offline\n  #2 Offline one\nDone (1)\n  #3 Offline two")
    await clock.waitForSleepers()  // the replica waits to try again

    await remote.setReachable(true)
    await clock.advance(by: .seconds(5))
    while try replica(session).pendingChanges > 0 || replica(session).isOffline {
      await clock.advance(by: .seconds(5))
      await Task.yield()
    }
    #expect(
      try await titles(on: remote)
        == ["a": "Written offline", "board-1": "Offline one", "board-2": "Offline two"])
    #expect(await remote.version(of: "a", in: "cards") == 2)
    try await session.shutdown()
  }

  @Test func whatOtherClientsChangeShowsWhenSynced() async throws {
    await seed()
    let session = try await connect()
    // Cached: a search served again while fresh, until a change invalidates it.
    #expect(try await run(session, "search elsewhere").text.hasPrefix("no card matches"))
    await remote.write(
      #"{"id":"a","columnID":"done","title":"Renamed elsewhere","notes":"","tags":[],"createdAt":0,"updatedAt":1}"#,
      id: "a", in: "cards", by: "other")
    await remote.write(
      #"{"id":"b","columnID":"todo","title":"New elsewhere","notes":"","tags":[],"createdAt":0,"updatedAt":1}"#,
      id: "b", in: "cards", by: "other")
    #expect(try await replica(session).sync())
    #expect(
      try await run(session, "list").text
        == "Todo (1)\n  #2 New elsewhere\nDone (1)\n  #1 Renamed elsewhere")
    // The pulled cards invalidate the search, as a change made here does.
    #expect(try await run(session, "search elsewhere").text.hasPrefix("2 card(s) match"))
    try await session.shutdown()
  }

  @Test func aCardDeletedOnTheServerWhileEditedHereIsAConflictNotALoss() async throws {
    await seed()
    let session = try await connect()
    await remote.setReachable(false)
    _ = try await run(session, "title 1 My offline edit")
    await remote.setReachable(true)
    await remote.write(nil, id: "a", in: "cards", by: "other")
    #expect(try await replica(session).sync())
    // The edit stays on the board, and the status line says what happened and what to do.
    #expect(session.board.cards[1]?.title == "My offline edit")
    let status = try StatusLine.server(replica(session))
    #expect(status.isProblem)
    #expect(
      status.text
        == "conflict: #1 deleted on the server, yours kept here · K sends yours, T takes theirs")
    #expect(
      try await run(session, "status").text
        == "conflict: #1 deleted on the server, yours kept here · K sends yours, T takes theirs"
        + " (keep sends yours, theirs takes the server's)")
    #expect(await remote.rows(of: "cards")["a"] == nil)

    // Keeping it sends it again.
    #expect(try await run(session, "keep 1").text == "#1: yours is sent")
    #expect(try await replica(session).sync())
    #expect(try await titles(on: remote) == ["a": "My offline edit"])
    #expect(try replica(session).conflicts.isEmpty)
    #expect(try StatusLine.server(replica(session)) == ("synced", false))
    try await session.shutdown()
  }

  @Test func aStaleEditSettledWithTheServersVersionShowsIt() async throws {
    await seed()
    let session = try await connect()
    await remote.setReachable(false)
    _ = try await run(session, "title 1 Mine")
    await remote.setReachable(true)
    await remote.write(
      #"{"id":"a","columnID":"todo","title":"Theirs","notes":"","tags":[],"createdAt":0,"updatedAt":1}"#,
      id: "a", in: "cards", by: "other")
    #expect(try await replica(session).sync())
    #expect(session.board.cards[1]?.title == "Mine")
    #expect(try StatusLine.server(replica(session)).text.hasPrefix("conflict: #1 changed"))
    #expect(try await run(session, "theirs 1").text == "#1: the server's is kept")
    #expect(session.board.cards[1]?.title == "Theirs")
    #expect(try replica(session).conflicts.isEmpty)
    try await session.shutdown()
  }

  @Test func aColumnRenamedOnBothSidesIsAConflictSettledLikeACard() async throws {
    await seed()
    let session = try await connect()
    await remote.setReachable(false)
    _ = try await run(session, "column rename Todo Later")
    await remote.setReachable(true)
    await remote.write(#"{"id":"todo","name":"Soon"}"#, id: "todo", in: "columns", by: "other")
    #expect(try await replica(session).sync())
    #expect(
      try StatusLine.server(replica(session)).text
        == #"conflict: column "Later" changed on the server, yours kept here · K sends yours, T takes theirs"#
    )
    #expect(try await run(session, "keep").text == #"column "Later": yours is sent"#)
    #expect(try await replica(session).sync())
    #expect(await remote.rows(of: "columns")["todo"]?.contains("Later") == true)
    #expect(try await run(session, "keep").text == "error: no conflict with the server waits")
    #expect(try await run(session, "theirs 1").text == "error: #1 has no conflict with the server")
    try await session.shutdown()
  }

  @Test func twoBoardsOnOneReplicaFileShowWhatTheOtherSaves() async throws {
    await seed()
    let first = try await connect("first", file: "shared")
    let second = try await connect("second", file: "shared")
    await remote.setReachable(false)  // the file alone carries the change
    _ = try await run(first, "add Done From the first")
    while second.board.cards.count < 2 {
      await clock.advance(by: .milliseconds(200))
      await Task.yield()
    }
    #expect(
      try await run(second, "list").text == "Todo (1)\n  #1 Write\nDone (1)\n  #2 From the first")
    _ = try await run(second, "title 2 Edited in the second")
    while first.board.cards[2]?.title != "Edited in the second" {
      await clock.advance(by: .milliseconds(200))
      await Task.yield()
    }
    await remote.setReachable(true)
    #expect(try await replica(first).sync())
    #expect(try await titles(on: remote) == ["a": "Write", "first-1": "Edited in the second"])
    try await first.shutdown()
    try await second.shutdown()
  }

  @Test func aNewBoardThatCannotReachTheServerStartsEmptyAndOffline() async throws {
    await remote.setReachable(false)
    let session = try await connect()
    #expect(try replica(session).isOffline)
    #expect(session.board.columns.isEmpty)
    #expect(try StatusLine.server(replica(session)) == ("offline — 0 change(s) to send", true))
    try await session.shutdown()
  }
}
