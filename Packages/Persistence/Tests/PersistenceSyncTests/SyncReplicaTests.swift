import Foundation
import Persistence
import PersistenceSync
import PersistenceSyncTesting
import Testing

@Suite("SyncReplica: an offline-first replica of a remote's tables")
struct SyncReplicaTests {
  @Test("edits made while the remote is unreachable are kept, counted, and sent when it returns")
  func offlineEdits() async throws {
    let directory = try TemporaryDirectory()
    let remote = InMemorySyncRemote()
    let client = try SyncClient(directory.url, name: "a", remote: remote)
    client.link.set(up: false)
    try await client.write("1", "one")
    try await client.write("2", "two")
    try await client.write("1", "one, edited")
    try await client.write("3", "three")
    try await client.write("3", nil)  // made and deleted offline: the remote never has it
    await #expect(throws: SyncError.self) { try await client.replica.sync() }
    #expect(try await client.replica.pendingChanges() == 3)

    client.link.set(up: true)
    let report = try await client.replica.sync()
    #expect(report.pushed == 3)
    #expect(report.conflicts.isEmpty)
    #expect(try await client.replica.pendingChanges() == 0)
    #expect(try texts(await remote.rows(of: "notes")) == ["1": "one, edited", "2": "two"])
    #expect(await remote.version(of: "1", in: "notes") == 1)
  }

  @Test("a push whose reply was lost is applied once when retried: the version moves by one")
  func lostReply() async throws {
    let directory = try TemporaryDirectory()
    let remote = InMemorySyncRemote()
    let client = try SyncClient(directory.url, name: "a", remote: remote)
    try await client.write("1", "one")
    await remote.loseNextReply()
    await #expect(throws: SyncError.self) { try await client.replica.push() }
    #expect(await remote.version(of: "1", in: "notes") == 1)
    #expect(try await client.replica.pendingChanges() == 1)

    let report = try await client.replica.sync()
    #expect(report.pushed == 1)
    #expect(await remote.version(of: "1", in: "notes") == 1)
    #expect(await remote.appliedChanges.count == 1)
    #expect(try await client.replica.pendingChanges() == 0)

    // Lost again, then edited before the retry: the remote's row is this replica's own, so
    // the edit applies on it, without a conflict.
    try await client.write("1", "one, again")
    await remote.loseNextReply()
    await #expect(throws: SyncError.self) { try await client.replica.push() }
    try await client.write("1", "one, third")
    let retried = try await client.replica.sync()
    #expect(retried.conflicts.isEmpty)
    #expect(await remote.version(of: "1", in: "notes") == 3)
    #expect(try texts(await remote.rows(of: "notes")) == ["1": "one, third"])
  }

  @Test("a pull writes the remote's rows into the file and never pushes them back")
  func pullNeverWritesBack() async throws {
    let directory = try TemporaryDirectory()
    let remote = InMemorySyncRemote()
    let a = try SyncClient(directory.url, name: "a", remote: remote)
    let b = try SyncClient(directory.url, name: "b", remote: remote)
    try await a.write("1", "one")
    try await a.write("2", "two")
    try await a.replica.sync()
    let pulled = try await b.replica.sync()
    #expect(pulled.pulled == 2)
    #expect(try await b.notes() == ["1": "one", "2": "two"])
    #expect(try await b.replica.pendingChanges() == 0)
    try await b.replica.sync()
    try await a.replica.sync()
    #expect(await remote.appliedChanges.count == 2)
    // Deletions travel too.
    try await a.write("2", nil)
    try await a.replica.sync()
    try await b.replica.sync()
    #expect(try await b.notes() == ["1": "one"])
  }

  @Test("an edit made on a stale version is a conflict: the local value stays, then .mine wins")
  func staleEditKeepsMine() async throws {
    let directory = try TemporaryDirectory()
    let remote = InMemorySyncRemote()
    let a = try SyncClient(directory.url, name: "a", remote: remote)
    let b = try SyncClient(directory.url, name: "b", remote: remote)
    try await a.write("1", "one")
    try await a.replica.sync()
    try await b.replica.sync()
    try await a.write("1", "edited by a")
    try await a.replica.sync()
    try await b.write("1", "edited by b")

    let report = try await b.replica.sync()
    #expect(report.pushed == 0)
    #expect(report.conflicts.map(\.id) == ["1"])
    let conflict = try #require(try await b.replica.conflicts().first)
    #expect(conflict.localJSON?.contains("edited by b") == true)
    #expect(conflict.conflict.currentJSON?.contains("edited by a") == true)
    #expect(conflict.conflict.expectedVersion == 1)
    #expect(conflict.conflict.currentVersion == 2)
    // The pull left the local value; a later sync neither pushes nor overwrites it.
    #expect(try await b.notes() == ["1": "edited by b"])
    try await b.replica.sync()
    #expect(try await b.notes() == ["1": "edited by b"])
    #expect(try texts(await remote.rows(of: "notes")) == ["1": "edited by a"])

    try await b.replica.resolve(conflict.conflict, keeping: .mine)
    #expect(try await b.replica.pendingChanges() == 1)
    let resolved = try await b.replica.sync()
    #expect(resolved.pushed == 1)
    #expect(try await b.replica.conflicts().isEmpty)
    try await a.replica.sync()
    #expect(try await a.notes() == ["1": "edited by b"])
    #expect(try texts(await remote.rows(of: "notes")) == ["1": "edited by b"])
  }

  @Test("a row deleted remotely while edited locally is a conflict; .theirs deletes it here")
  func deletedRemotelyKeepsTheirs() async throws {
    let directory = try TemporaryDirectory()
    let remote = InMemorySyncRemote()
    let a = try SyncClient(directory.url, name: "a", remote: remote)
    let b = try SyncClient(directory.url, name: "b", remote: remote)
    try await a.write("1", "one")
    try await a.replica.sync()
    try await b.replica.sync()
    try await a.write("1", nil)
    try await a.replica.sync()
    try await b.write("1", "kept by b")

    let report = try await b.replica.sync()
    let conflict = try #require(report.conflicts.first)
    #expect(conflict.currentVersion == nil)
    #expect(conflict.currentJSON == nil)
    #expect(try await b.notes() == ["1": "kept by b"])

    try await b.replica.resolve(conflict, keeping: .theirs)
    #expect(try await b.notes() == [:])
    #expect(try await b.replica.conflicts().isEmpty)
    #expect(try await b.replica.pendingChanges() == 0)
    try await b.replica.sync()
    #expect(await remote.rows(of: "notes") == [:])
    await #expect(throws: SyncError.self) {
      try await b.replica.resolve(conflict, keeping: .theirs)
    }
  }

  @Test("the outbox survives a reopen, and the change log keeps it through pruning until sent")
  func outboxOutlivesPruning() async throws {
    let directory = try TemporaryDirectory()
    let remote = InMemorySyncRemote()
    var client: SyncClient? = try SyncClient(directory.url, name: "a", remote: remote)
    for id in 1...3 { try await client?.write("\(id)", "note \(id)", retention: .zero) }
    try await client?.replica.close()
    client = nil
    // Reopened: each write prunes what is older than its retention (zero), but the outbox.
    let reopened = try SyncClient(directory.url, name: "a", remote: remote)
    try await reopened.write("4", "note 4", retention: .zero)
    #expect(try await reopened.logCount() == 4)
    #expect(try await reopened.replica.pendingChanges() == 4)
    #expect(try await reopened.replica.sync().pushed == 4)
    // Sent: the next prune takes them; the new write's record is the outbox now.
    try await reopened.write("5", "note 5", retention: .zero)
    #expect(try await reopened.logCount() == 1)
    #expect(try await reopened.replica.pendingChanges() == 1)
    #expect(try texts(await remote.rows(of: "notes")).count == 4)
  }
}

/// A remote whose pages never move on: the same change, the same cursor, every time.
struct StuckRemote: SyncRemote {
  func push(_ changes: [SyncChange], from replica: String) -> [SyncOutcome] {
    changes.map { _ in .applied(version: 1) }
  }

  func pull(after cursor: String?, limit: Int) -> SyncPage {
    SyncPage(
      rows: [SyncedRow(table: "notes", id: "1", json: nil, version: 1, writer: "x")],
      cursor: cursor ?? "")
  }
}

@Suite("SyncReplica and a remote that misbehaves")
struct MisbehavingRemoteTests {
  @Test("a page that ends where it began is a malformed answer, not a loop")
  func stuckPages() async throws {
    let directory = try TemporaryDirectory()
    let client = try SyncClient(directory.url, name: "a", remote: StuckRemote())
    await #expect {
      try await client.replica.pull()
    } throws: { error in
      guard case SyncError.malformedAnswer = error else { return false }
      return true
    }
  }
}

@Suite("InMemorySyncRemote")
struct InMemorySyncRemoteTests {
  @Test("keeps SyncRemote's contract")
  func keepsTheContract() async throws {
    let contract = SyncRemoteContract(table: "notes") { id, n in
      #"{"id":"\#(id)","text":"value \#(n)"}"#
    }
    try await contract.verify { InMemorySyncRemote() }
  }

  @Test("a remote that forgot its history replays its rows: the deletions missed are made here")
  func replay() async throws {
    let directory = try TemporaryDirectory()
    let remote = InMemorySyncRemote()
    let a = try SyncClient(directory.url, name: "a", remote: remote)
    for id in ["1", "2", "3", "4"] { try await a.write(id, "note \(id)") }
    try await a.replica.sync()
    // While `a` is away, another writer deletes 1 and edits 2; `a` edits 3 (not sent yet).
    await remote.write(nil, id: "1", in: "notes", by: "other")
    await remote.write(#"{"id":"2","text":"two, elsewhere"}"#, id: "2", in: "notes", by: "other")
    await remote.write(nil, id: "3", in: "notes", by: "other")
    try await a.write("3", "three, edited here")
    await remote.forgetHistory()

    #expect(try await a.replica.pull() >= 1)
    // 1 is gone (the replay lacked it), 2 is the remote's, 3 keeps the edit waiting to be sent.
    #expect(
      try await a.notes() == ["2": "two, elsewhere", "3": "three, edited here", "4": "note 4"])
    let report = try await a.replica.sync()
    #expect(report.conflicts.map(\.id) == ["3"])
    #expect(report.conflicts.first?.currentVersion == nil)

    // The replay over, the next pull reads on from its end: nothing more.
    await remote.write(#"{"id":"5","text":"five"}"#, id: "5", in: "notes", by: "other")
    #expect(try await a.replica.pull() == 1)
    #expect(try await a.notes().keys.sorted() == ["2", "3", "4", "5"])
  }

  @Test("a retried push answered by its first outcome does not hide a change made since")
  func retriedKeyAfterAnotherWrite() async throws {
    let directory = try TemporaryDirectory()
    let remote = InMemorySyncRemote()
    let a = try SyncClient(directory.url, name: "a", remote: remote)
    try await a.write("1", "one")
    await remote.loseNextReply()
    await #expect(throws: SyncError.self) { try await a.replica.push() }
    // Applied, unanswered; then another writer edits the row, and `a` pulls that edit while
    // its own change still waits (held back), then retries the push: the remote answers the
    // first outcome, version 1, but holds version 2.
    await remote.write(#"{"id":"1","text":"one, elsewhere"}"#, id: "1", in: "notes", by: "b")
    #expect(try await a.replica.pull() == 0)
    #expect(try await a.notes() == ["1": "one"])
    let report = try await a.replica.push()
    #expect(report.conflicts.isEmpty)
    #expect(try await a.notes() == ["1": "one, elsewhere"])
    #expect(try await a.replica.pendingChanges() == 0)
    // The row's version is the remote's: the next edit applies without a conflict.
    try await a.write("1", "one, edited after")
    #expect(try await a.replica.sync().conflicts.isEmpty)
    #expect(try texts(await remote.rows(of: "notes")) == ["1": "one, edited after"])
  }
}
