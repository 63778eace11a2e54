import EntityTracking
import Foundation
import GRDB
import Persistence
import PersistenceSQLite
import ReduxCoreTesting
import Synchronization
import Testing

/// Two writers on one SQLite file (two opens, as two processes hold them; the real processes
/// are in `TwoProcessTests`): a stale write is a conflict resolved as on PostgreSQL, never a
/// silent overwrite; each one's feed brings the other's commits; ids never collide.
@MainActor
@Suite(.serialized, .timeLimit(.minutes(1)))
struct SharedFileTests {
  /// One process's view of the file: its database, its state, its middleware and its feed.
  @MainActor
  final class Process {
    let database: SQLiteDatabase
    var library: Library
    let persistence: PersistenceMiddleware<Library>
    let feed: SQLiteChangeFeed
    let deliveries = Deliveries<Note>()
    let feedClock = ManualClock()
    private var following: Task<Void, Never>?

    init(_ path: URL, as name: String, notes: EntityTable<Note> = noteTable) async throws {
      database = try SQLiteDatabase(
        path: path.path, migrator: libraryMigrator(), instance: name)
      let cursor = try await database.feedCursor()
      library = Library(
        tags: try await database.load(tagTable), notes: try await database.load(notes))
      persistence = PersistenceMiddleware(
        database: database,
        writers: [
          StateWriter(keyPath: \.tags, table: tagTable, database: database),
          StateWriter(keyPath: \.notes, table: notes, database: database),
        ],
        // NB: flushes only when the test says so.
        clock: ManualClock())
      feed = database.changeFeed(from: cursor, pollInterval: .milliseconds(200), clock: feedClock)
      feed.subscribe(notes) { [deliveries] in deliveries.yield($0) }
      following = Task { [feed] in await feed.run() }
    }

    /// What a reducer does with an action: edit, then the middleware drains.
    func edit(_ body: (inout Library) -> Void) {
      body(&library)
      persistence.afterReduce(state: &library)
    }

    /// One poll of the feed: whatever it delivers, applied as a reducer would.
    @discardableResult
    func poll() async -> (changes: [RemoteChanges<Note>], heldBack: [String]) {
      await feedClock.waitForSleepers(1)
      await feedClock.advance(by: .milliseconds(200))
      // NB: sleeping again: the poll has read and delivered all it found.
      await feedClock.waitForSleepers(1)
      let delivered = deliveries.drain()
      var heldBack: [String] = []
      for changes in delivered { edit { heldBack += $0.notes.apply(changes) } }
      return (delivered, heldBack)
    }

    func close() async throws {
      following?.cancel()
      try await persistence.shutdown()
      try database.close()
    }
  }

  @Test func aConflictOnARowThatNoLongerDecodesIsNeverTakenForADeletion() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("shared.sqlite")
    let a = try await Process(file, as: "a")
    a.edit { $0.notes.upsert(Note(id: "x", title: "original")) }
    try await a.persistence.flush()
    let b = try await Process(file, as: "b")
    // Another tool leaves the row in a state no `Note` decodes from.
    try await a.database.writer.write { db in
      try db.execute(sql: "UPDATE notes SET title = NULL, version = version + 1 WHERE id = 'x'")
    }

    b.edit { $0.notes.modify("x") { $0.title = "B's" } }
    let conflicts = await conflictsOf(b.persistence)
    #expect(conflicts.map(\.id) == ["x"])
    #expect(conflicts.first?.currentJSON?.contains(#""title":null"#) == true)
    // Keeping theirs cannot decode the row: said, and nothing is resolved (no deletion).
    #expect {
      _ = try b.database.keepTheirs(conflicts, in: noteTable)
    } throws: { error in
      if case .undecodable(table: "notes", id: "x", _)? = error as? SQLiteDatabaseError {
        true
      } else {
        false
      }
    }
    #expect(b.library.notes["x"]?.title == "B's")
    // Keeping mine repairs the row.
    b.database.resolve(try #require(conflicts.first), keeping: .mine)
    try await b.persistence.flush()
    #expect(try await a.database.load(noteTable)["x"]?.title == "B's")
    try await a.close()
    try await b.close()
  }

  /// New rows are inserted many to a statement: among them, a row another process made
  /// meanwhile is a conflict and a row the file refuses a rejected write, each found on its
  /// own; every other row is stored, in order, and logged once at its version.
  @Test func amongManyNewRowsEachConflictAndRefusalIsFoundAndTheRestIsStored() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("shared.sqlite")
    let a = try await Process(file, as: "a")
    let b = try await Process(file, as: "b")
    // 300 rows: statements of 128, 128, 32, 8, 2 and 2 rows.
    let ids = (0..<300).map { String(format: "n%03d", $0) }
    a.edit { $0.notes.upsert(Note(id: "n150", title: "A's")) }
    try await a.persistence.flush()
    b.edit {
      for id in ids { $0.notes.upsert(Note(id: id, title: id == "n200" ? "secret" : "B's")) }
    }

    let conflicts = await conflictsOf(b.persistence)
    #expect(conflicts.map(\.id) == ["n150"])
    #expect(conflicts.first?.currentJSON?.contains("A's") == true)
    #expect(try rowVersions(file) == ["n150": 1])  // nothing of B's flush written

    // Theirs kept; the file refuses one row of the flush that follows.
    try await refuseSecrets(on: "INSERT", in: b.database)
    let theirs = try b.database.keepTheirs(conflicts, in: noteTable)
    b.edit { $0.notes.apply(theirs) }
    #expect(await rejectedIDs(b.persistence) == ["n200"])

    let stored = try await a.database.load(noteTable)
    let others = ids.filter { $0 != "n150" && $0 != "n200" }
    #expect(stored.values.map(\.id).filter { $0 != "n150" } == others)
    #expect(stored["n150"]?.title == "A's")
    let versions = try rowVersions(file)
    let logged = try logRecords(file, origin: "b")
    #expect(logged.map(\.0) == others)
    #expect(logged.allSatisfy { versions[$0.0] == $0.1 })
    try await a.close()
    try await b.close()
  }

  /// Rows are updated many to a statement, each at its base version: among them, a row
  /// another process changed meanwhile is a conflict and a row the file refuses a rejected
  /// write, each found on its own; every other row is updated, and logged once at its version.
  @Test func amongManyUpdatesEachConflictAndRefusalIsFoundAndTheRestIsStored() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("shared.sqlite")
    let a = try await Process(file, as: "a")
    // 300 rows: statements of 128, 128, 32, 8, 2 and 2 rows.
    let ids = (0..<300).map { String(format: "n%03d", $0) }
    a.edit { for id in ids { $0.notes.upsert(Note(id: id, title: "first")) } }
    try await a.persistence.flush()
    let b = try await Process(file, as: "b")
    a.edit { $0.notes.modify("n150") { $0.title = "A's" } }
    try await a.persistence.flush()
    b.edit {
      for id in ids { $0.notes.modify(id) { $0.title = id == "n200" ? "secret" : "B's" } }
    }

    let conflicts = await conflictsOf(b.persistence)
    #expect(conflicts.map(\.id) == ["n150"])
    #expect(conflicts.map(\.expectedVersion) == [1])
    #expect(conflicts.map(\.currentVersion) == [2])
    #expect(try await a.database.load(noteTable).values.filter { $0.title == "B's" }.isEmpty)

    // Theirs kept; the file refuses one row of the flush that follows.
    try await refuseSecrets(on: "UPDATE", in: b.database)
    let theirs = try b.database.keepTheirs(conflicts, in: noteTable)
    b.edit { $0.notes.apply(theirs) }
    #expect(await rejectedIDs(b.persistence) == ["n200"])

    let stored = try await a.database.load(noteTable)
    #expect(stored.values.map(\.id) == ids)
    #expect(
      stored.values.map(\.title) == ids.map { ["n150": "A's", "n200": "first"][$0] ?? "B's" })
    let others = ids.filter { $0 != "n150" && $0 != "n200" }
    let versions = try rowVersions(file)
    #expect(others.allSatisfy { versions[$0] == 2 })
    let logged = try logRecords(file, origin: "b")
    #expect(logged.map(\.0) == others)
    #expect(logged.allSatisfy { $0.1 == 2 })
    try await a.close()
    try await b.close()
  }

  /// Random batches of new rows, inserted in statements of 128, 32, 8, 2 and 1 rows: whatever
  /// a batch's size and wherever the rows another process made (conflicts) or the file refuses
  /// stand in it, exactly those are reported, and every other row is stored, in order.
  @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
  func randomBatchesOfNewRowsReportExactlyTheirConflictsAndRefusals(seed: UInt64) async throws {
    var random = SeededRandom(seed: seed)
    let directory = try TemporaryDirectory()
    let file = directory.file("shared.sqlite")
    let a = try await Process(file, as: "a")
    let b = try await Process(file, as: "b")
    try await refuseSecrets(on: "INSERT", in: a.database)
    var all: [String] = []
    var written: [String] = []  // B's rows the file keeps, in B's order
    for round in 0..<5 {
      let ids = (0..<(1 + random.next(below: 300))).map { "r\(round)-\($0)" }
      let picked = Set((0...random.next(below: 3)).map { _ in ids[random.next(below: ids.count)] })
      // NB: conflicts or refusals in a round, not both: a flush reports its refusals first.
      let (taken, secret) = random.next(below: 2) == 0 ? (picked, []) : ([], picked)
      a.edit {
        for id in ids where taken.contains(id) { $0.notes.upsert(Note(id: id, title: "A's")) }
      }
      try await a.persistence.flush()
      b.edit {
        for id in ids {
          $0.notes.upsert(Note(id: id, title: secret.contains(id) ? "secret" : "B's"))
        }
      }
      if !taken.isEmpty {
        let conflicts = await conflictsOf(b.persistence)
        #expect(conflicts.map(\.id) == ids.filter(taken.contains), "round \(round)")
        let theirs = try b.database.keepTheirs(conflicts, in: noteTable)
        b.edit { $0.notes.apply(theirs) }
        try await b.persistence.flush()
      } else {
        #expect(await rejectedIDs(b.persistence) == ids.filter(secret.contains), "round \(round)")
        b.persistence.discardRejected()
      }
      all += ids.filter { !secret.contains($0) }
      written += ids.filter { !taken.contains($0) && !secret.contains($0) }
    }

    let stored = try await a.database.load(noteTable)
    #expect(Set(stored.values.map(\.id)) == Set(all))
    let bRows = Set(written)
    #expect(stored.values.map(\.id).filter(bRows.contains) == written)
    #expect(stored.values.allSatisfy { ($0.title == "B's") == bRows.contains($0.id) })
    #expect(try logRecords(file, origin: "b").map(\.0) == written)
    try await a.close()
    try await b.close()
  }

  @Test func aStaleWriteIsAConflictResolvedForMine() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("shared.sqlite")
    let a = try await Process(file, as: "a")
    a.edit { $0.notes.upsert(Note(id: "x", title: "original")) }
    try await a.persistence.flush()
    let b = try await Process(file, as: "b")

    a.edit { $0.notes.modify("x") { $0.title = "A's" } }
    try await a.persistence.flush()
    b.edit { $0.notes.modify("x") { $0.title = "B's" } }
    let conflicts = await conflictsOf(b.persistence)
    #expect(conflicts.map(\.id) == ["x"])
    #expect(conflicts.map(\.expectedVersion) == [1])
    #expect(conflicts.map(\.currentVersion) == [2])
    #expect(conflicts.first?.currentJSON?.contains("A's") == true)
    #expect(try await a.database.load(noteTable)["x"]?.title == "A's")  // not overwritten
    #expect(b.persistence.status.pendingCount == 1)  // kept, and failing until resolved

    b.database.resolve(try #require(conflicts.first), keeping: .mine)
    try await b.persistence.flush()
    #expect(try await a.database.load(noteTable)["x"]?.title == "B's")
    #expect(try rowVersions(file)["x"] == 3)
    try await a.close()
    try await b.close()
  }

  @Test func keepingTheirsPutsTheFileRowInTheStateAndDropsTheLocalChange() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("shared.sqlite")
    let a = try await Process(file, as: "a")
    a.edit { $0.notes.upsert(contentsOf: [Note(id: "x", title: "x"), Note(id: "y", title: "y")]) }
    try await a.persistence.flush()
    let b = try await Process(file, as: "b")

    // A edits x and deletes y; B edits both, then B's one flush meets both conflicts.
    a.edit {
      $0.notes.modify("x") { $0.title = "A's x" }
      $0.notes.remove("y")
    }
    try await a.persistence.flush()
    b.edit {
      $0.notes.modify("x") { $0.title = "B's x" }
      $0.notes.modify("y") { $0.title = "B's y" }
      $0.notes.upsert(Note(id: "z", title: "B's new note"))
    }
    let conflicts = await conflictsOf(b.persistence)
    #expect(Set(conflicts.map(\.id)) == ["x", "y"])
    #expect(conflicts.first { $0.id == "y" }?.currentVersion == nil)  // deleted by A

    let theirs = try b.database.keepTheirs(conflicts, in: noteTable)
    b.edit { $0.notes.apply(theirs) }
    try await b.persistence.flush()
    #expect(b.library.notes["x"]?.title == "A's x")
    #expect(b.library.notes["y"] == nil)
    let stored = try await a.database.load(noteTable)
    #expect(stored.values == [Note(id: "x", title: "A's x"), Note(id: "z", title: "B's new note")])
    try await a.close()
    try await b.close()
  }

  @Test func aRowCreatedWithTheSameIDByAnotherProcessIsAConflict() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("shared.sqlite")
    let a = try await Process(file, as: "a")
    let b = try await Process(file, as: "b")
    a.edit { $0.notes.upsert(Note(id: "n", title: "A's n")) }
    b.edit { $0.notes.upsert(Note(id: "n", title: "B's n")) }
    try await a.persistence.flush()
    let conflicts = await conflictsOf(b.persistence)
    #expect(conflicts.map(\.expectedVersion) == [nil])
    #expect(conflicts.map(\.currentVersion) == [1])
    #expect(try await a.database.load(noteTable)["n"]?.title == "A's n")
    try await a.close()
    b.database.resolve(try #require(conflicts.first), keeping: .theirs)
    try await b.close()
  }

  @Test func bothDeletingARowIsNoConflict() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("shared.sqlite")
    let a = try await Process(file, as: "a")
    a.edit { $0.notes.upsert(Note(id: "x", title: "x")) }
    try await a.persistence.flush()
    let b = try await Process(file, as: "b")
    a.edit { $0.notes.remove("x") }
    b.edit { $0.notes.remove("x") }
    try await a.persistence.flush()
    try await b.persistence.flush()
    #expect(try await a.database.load(noteTable).isEmpty)
    try await a.close()
    try await b.close()
  }

  @Test func aLastWriterWinsTableOverwritesAsItAsked() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("shared.sqlite")
    let notes = EntityTable<Note>("notes", conflictPolicy: .lastWriterWins)
    let a = try await Process(file, as: "a", notes: notes)
    a.edit { $0.notes.upsert(Note(id: "x", title: "x")) }
    try await a.persistence.flush()
    let b = try await Process(file, as: "b", notes: notes)
    a.edit { $0.notes.modify("x") { $0.title = "A's" } }
    try await a.persistence.flush()
    b.edit {
      $0.notes.modify("x") { $0.title = "B's" }
      $0.notes.upsert(Note(id: "y", title: "y"))
    }
    try await b.persistence.flush()
    #expect(try await a.database.load(notes)["x"]?.title == "B's")
    // NB: a new row starts at the change log's next number (two records before it), as under
    // the default policy.
    #expect(try rowVersions(file) == ["x": 3, "y": 3])
    try await a.close()
    try await b.close()
  }

  @Test func eachProcessReceivesTheOthersCommitsAndNeverWritesThemBack() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("shared.sqlite")
    let a = try await Process(file, as: "a")
    let b = try await Process(file, as: "b")
    #expect(await b.poll().changes.isEmpty)

    a.edit {
      $0.notes.upsert(contentsOf: [Note(id: "1", title: "one"), Note(id: "2", title: "two")])
    }
    try await a.persistence.flush()
    let (changes, heldBack) = await b.poll()
    #expect(changes.flatMap(\.changes).map(\.origin) == ["a", "a"])
    #expect(changes.flatMap(\.changes).map(\.version) == [1, 1])
    #expect(heldBack.isEmpty)
    #expect(b.library.notes == a.library.notes)
    #expect(b.persistence.status.pendingCount == 0)  // hydrated: nothing to write back

    // A moves 1 to the end (deleted and inserted again): B's store follows the order.
    a.edit {
      let one = $0.notes.remove("1")!
      $0.notes.upsert(one)
      $0.notes.remove("2")
      $0.notes.upsert(Note(id: "3", title: "three"))
    }
    try await a.persistence.flush()
    await b.poll()
    #expect(b.library.notes.ids == a.library.notes.ids)
    #expect(b.library.notes.ids == ["1", "3"])

    // A's feed delivers B's change, never A's own.
    b.edit { $0.notes.modify("3") { $0.title = "three, by b" } }
    try await b.persistence.flush()
    let atA = await a.poll()
    #expect(atA.changes.flatMap(\.changes).map(\.origin) == ["b"])
    #expect(a.library.notes == b.library.notes)
    #expect(await b.poll().changes.isEmpty)
    #expect(try logOrigins(file) == ["a", "a", "a", "a", "a", "b"])
    try await a.close()
    try await b.close()
  }

  @Test func bothProcessesHoldTheSameOrderAfterEachOthersMovesAndInsertions() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("shared.sqlite")
    let a = try await Process(file, as: "a")
    let b = try await Process(file, as: "b")
    a.edit { $0.notes.upsert(contentsOf: (1...6).map { Note(id: "\($0)", title: "\($0)") }) }
    try await a.persistence.flush()
    await b.poll()

    // At once: A moves 5 between 1 and 2 (an undo would) and adds a note at the end; B moves
    // 2 to the end (deleted and inserted again) and adds a note at the end too.
    let moved = ["1", "5", "2", "3", "4", "6"].map { a.library.notes[$0]! }
    a.edit {
      $0.notes.restore(from: EntityStore(moved))
      $0.notes.upsert(Note(id: "a7", title: "A's"))
    }
    b.edit {
      let two = $0.notes.remove("2")!
      $0.notes.upsert(two)
      $0.notes.upsert(Note(id: "b7", title: "B's"))
    }
    #expect(a.persistence.status.pendingCount == 2)
    try await a.persistence.flush()
    try await b.persistence.flush()
    await a.poll()
    await b.poll()

    #expect(a.library.notes.ids == b.library.notes.ids)
    #expect(Array(a.library.notes.ids.prefix(2)) == ["1", "5"])
    #expect(a.library.notes.ids.firstIndex(of: "2")! < a.library.notes.ids.firstIndex(of: "b7")!)
    let reader = try await Process(file, as: "reader")
    #expect(reader.library.notes.ids == a.library.notes.ids)
    #expect(reader.library.notes.values == a.library.notes.values)
    try await a.close()
    try await b.close()
    try await reader.close()
  }

  @Test func aRemoteChangeNeverHidesALocalEditWaitingForItsFlush() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("shared.sqlite")
    let a = try await Process(file, as: "a")
    let b = try await Process(file, as: "b")
    a.edit { $0.notes.upsert(Note(id: "1", title: "original")) }
    try await a.persistence.flush()
    await b.poll()

    b.edit { $0.notes.modify("1") { $0.title = "B's title" } }
    a.edit { $0.notes.modify("1") { $0.title = "A's title" } }
    try await a.persistence.flush()
    let (_, heldBack) = await b.poll()
    #expect(heldBack == ["1"])
    #expect(b.library.notes["1"]?.title == "B's title")  // the local edit stays in view
    let conflicts = await conflictsOf(b.persistence)
    #expect(conflicts.map(\.currentVersion) == [2])
    let theirs = try b.database.keepTheirs(conflicts, in: noteTable)
    b.edit { $0.notes.apply(theirs) }
    try await b.persistence.flush()
    #expect(b.library.notes["1"]?.title == "A's title")
    try await a.close()
    try await b.close()
  }

  @Test func aFeedThatFellBehindTheLogsRetentionComparesTheTables() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("shared.sqlite")
    let a = try await Process(file, as: "a")
    a.edit {
      $0.notes.upsert(contentsOf: [Note(id: "1", title: "one"), Note(id: "2", title: "two")])
    }
    try await a.persistence.flush()
    let b = try await Process(file, as: "b")
    a.edit {
      $0.notes.modify("1") { $0.title = "one, edited" }
      $0.notes.remove("2")
      $0.notes.upsert(Note(id: "3", title: "three"))
    }
    try await a.persistence.flush()
    a.edit { $0.notes.upsert(Note(id: "4", title: "four")) }
    try await a.persistence.flush()
    // The log is pruned past B's cursor (B asleep longer than the retention).
    try await a.database.writer.write { db in
      try db.execute(
        sql:
          "DELETE FROM reduxkit_change_log WHERE seq < (SELECT max(seq) FROM reduxkit_change_log)")
    }
    await b.poll()
    #expect(
      b.library.notes.values.sorted { $0.id < $1.id }
        == a.library.notes.values.sorted { $0.id < $1.id })
    #expect(b.persistence.status.pendingCount == 0)
    try await a.close()
    try await b.close()
  }

  /// A row deleted and made again starts above every version of the old row: a reader that saw
  /// the old one takes the new one, whether it reads the log (the deletion and the new row in
  /// one read) or, having lost its place, compares the tables.
  @Test(arguments: [false, true])
  func aRowDeletedAndMadeAgainReachesAReaderThatSawTheOldOne(logPruned: Bool) async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("shared.sqlite")
    let a = try await Process(file, as: "a")
    let b = try await Process(file, as: "b")
    a.edit { $0.notes.upsert(Note(id: "1", title: "old")) }
    try await a.persistence.flush()
    for edit in 1...3 {
      a.edit { $0.notes.modify("1") { $0.title = "old, edit \(edit)" } }
      try await a.persistence.flush()
    }
    await b.poll()
    #expect(b.library.notes["1"]?.title == "old, edit 3")

    a.edit { $0.notes.remove("1") }
    try await a.persistence.flush()
    a.edit { $0.notes.upsert(Note(id: "1", title: "new")) }
    try await a.persistence.flush()
    a.edit { $0.notes.modify("1") { $0.title = "new, edited" } }
    try await a.persistence.flush()
    let made = try #require(try rowVersions(file)["1"])
    #expect(made > 5)  // above the old row's deletion, at version 5
    if logPruned {
      try await a.database.writer.write { db in
        try db.execute(
          sql:
            "DELETE FROM reduxkit_change_log WHERE seq < (SELECT max(seq) FROM reduxkit_change_log)"
        )
      }
    }
    await b.poll()
    #expect(b.library.notes["1"]?.title == "new, edited")
    #expect(b.persistence.status.pendingCount == 0)
    // B's next edit is based on the new row's version: no conflict.
    b.edit { $0.notes.modify("1") { $0.title = "new, by b" } }
    try await b.persistence.flush()
    #expect(try rowVersions(file) == ["1": made + 1])
    try await a.close()
    try await b.close()
  }

  @Test func newIDsNeverCollideAcrossProcesses() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("shared.sqlite")
    let a = try await Process(file, as: "a")
    // Rows stored before any id was handed out count: the first id is above them.
    a.edit { $0.tags.upsert(Tag(id: 41, name: "old")) }
    try await a.persistence.flush()
    let b = try await Process(file, as: "b")
    var ids: [Int64] = []
    for _ in 0..<20 {
      ids.append(try await a.database.newID(for: tagTable))
      ids.append(try await b.database.newID(for: tagTable))
    }
    ids += try await b.database.newIDs(for: tagTable, count: 5)
    #expect(Set(ids).count == ids.count)
    #expect(ids.min() == 42)
    #expect(ids.max() == 86)
    try await a.close()
    try await b.close()
  }

  @Test func aTableMadeBeforeVersionsIsRefusedUntilMigrated() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("old.sqlite")
    // The layout of a table made by ReduxKit before row versions.
    do {
      let queue = try DatabaseQueue(path: file.path)
      try await queue.write { db in
        try db.execute(sql: "CREATE TABLE notes (id NOT NULL PRIMARY KEY, data BLOB NOT NULL)")
        try db.execute(
          sql: "INSERT INTO notes VALUES ('a', ?)",
          arguments: [try JSONEncoder().encode(Note(id: "a", title: "kept"))])
      }
      try queue.close()
    }
    let v1 = SQLiteMigration("v1") { db in try db.execute(sql: "SELECT 1") }
    let old = try SQLiteDatabase(path: file.path, migrations: [v1])
    await #expect {
      _ = try await old.load(noteTable)
    } throws: { error in
      guard case SQLiteDatabaseError.unversionedTable(table: "notes") = error else { return false }
      return "\(error)".contains("addVersions")
    }
    try old.close()

    // Versions alone: the entity is still JSON in one column, which this release no longer
    // reads.
    let v2 = SQLiteMigration("v2-versions") { db in try noteTable.addVersions(in: db) }
    let versioned = try SQLiteDatabase(path: file.path, migrations: [v1, v2])
    await #expect {
      _ = try await versioned.load(noteTable)
    } throws: { error in
      guard case SQLiteDatabaseError.jsonTable(table: "notes") = error else { return false }
      return "\(error)".contains("convertToColumns")
    }
    try versioned.close()

    let migrated = try SQLiteDatabase(
      path: file.path,
      migrations: [
        v1, v2, SQLiteMigration("v3-columns") { db in try noteTable.convertToColumns(in: db) },
      ])
    #expect(try await migrated.load(noteTable).values == [Note(id: "a", title: "kept")])
    try migrated.close()
    #expect(try rowVersions(file) == ["a": 1])
  }

  // MARK: - Helpers

  /// Makes the file refuse, on `event` (`INSERT`, `UPDATE`), a note titled "secret".
  private func refuseSecrets(on event: String, in database: SQLiteDatabase) async throws {
    try await database.writer.write { db in
      try db.execute(
        sql: """
          CREATE TRIGGER no_secrets BEFORE \(event) ON notes WHEN NEW.title = 'secret'
          BEGIN SELECT RAISE(ABORT, 'no secrets'); END
          """)
    }
  }

  /// Flushes, and returns the ids of the writes the file refused.
  private func rejectedIDs(_ persistence: PersistenceMiddleware<Library>) async -> [String] {
    do {
      try await persistence.flush()
      Issue.record("the flush succeeded; expected a refused write")
      return []
    } catch {
      guard case .rejected(let rejected) = error else {
        Issue.record("unexpected \(error)")
        return []
      }
      return rejected.map(\.id)
    }
  }

  /// The change log's records of `origin`, in order: each row's id and version.
  private func logRecords(_ file: URL, origin: String) throws -> [(String, Int64)] {
    let queue = try DatabaseQueue(path: file.path)
    defer { try? queue.close() }
    return try queue.read { db in
      try Row.fetchAll(
        db,
        sql: "SELECT entity_id, version FROM reduxkit_change_log WHERE origin = ? ORDER BY seq",
        arguments: [origin]
      ).map { (row: Row) in (row[0] as String, row[1] as Int64) }
    }
  }

  private func conflictsOf(_ persistence: PersistenceMiddleware<Library>) async
    -> [PersistenceConflict]
  {
    do {
      try await persistence.flush()
      Issue.record("the flush succeeded; expected conflicts")
      return []
    } catch {
      return error.conflicts
    }
  }

  private func rowVersions(_ file: URL) throws -> [String: Int64] {
    let queue = try DatabaseQueue(path: file.path)
    defer { try? queue.close() }
    return try queue.read { db in
      try Dictionary(
        uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT id, version FROM notes").map {
          ("\($0[0] as DatabaseValue)".replacingOccurrences(of: "\"", with: ""), $0[1] as Int64)
        })
    }
  }

  private func logOrigins(_ file: URL) throws -> [String] {
    let queue = try DatabaseQueue(path: file.path)
    defer { try? queue.close() }
    return try queue.read { db in
      try String.fetchAll(db, sql: "SELECT origin FROM reduxkit_change_log ORDER BY seq")
    }
  }
}
