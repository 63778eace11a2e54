import EntityTracking
import Foundation
import Persistence
import PersistencePostgresTesting
import PostgresNIO
import Testing

@testable import PersistencePostgres

/// In CI (`.ci/run` sets REDUXKIT_REQUIRE_POSTGRES) the server must be there: a skipped suite
/// would hide that nothing ran.
@Test func theServerIsThereWhenRequired() {
  let required = ProcessInfo.processInfo.environment["REDUXKIT_REQUIRE_POSTGRES"] != nil
  #expect(!required || TestServer.isAvailable, "start PostgreSQL: Scripts/postgres.sh start")
}

/// Against a real PostgreSQL server: one transaction per flush, optimistic concurrency, typed
/// errors, the gap-free change feed.
@MainActor
@Suite(.enabled(if: TestServer.isAvailable, Comment(rawValue: TestServer.skipReason)), .serialized)
struct PostgresBackendTests {
  func middleware(_ database: PostgresBackend) -> PersistenceMiddleware<Board> {
    PersistenceMiddleware(
      backend: database,
      writers: [
        StateWriter(keyPath: \.columns, table: columnTable, database: database),
        StateWriter(keyPath: \.cards, table: cardTable, database: database),
      ])
  }

  @Test func aFlushIsOneTransactionThatAnotherInstanceLoadsInOrder() async throws {
    let url = try await TestServer.makeDatabase()
    let first = try await openBoard(url, as: "a")
    let persistence = middleware(first)
    var board = Board()
    board.columns.upsert(Column(id: "todo", name: "Todo"))
    for id in [3, 1, 2] { board.cards.upsert(Card(id: id, title: "card \(id)")) }
    board.cards.remove(1)
    board.cards.upsert(Card(id: 1, title: "card 1, again"))  // placed last
    persistence.afterReduce(state: &board)
    try await persistence.shutdown()

    let second = try await openBoard(url, as: "b")
    #expect(try await second.load(cardTable).map(\.id) == [3, 2, 1])
    #expect(try await second.load(columnTable).map(\.name) == ["Todo"])
    let flushes = try await TestServer.admin(url) { connection in
      let rows = try await connection.query(
        "SELECT count(DISTINCT txid)::bigint FROM reduxkit_change_log", logger: TestServer.quiet)
      var count: Int64 = 0
      for try await value in rows.decode(Int64.self) { count = value }
      return count
    }
    #expect(flushes == 1)  // every writer's rows in one transaction
    first.close()
    second.close()
  }

  @Test func aBatchThatFailsRollsBackTheWholeFlushAndStaysPending() async throws {
    let url = try await TestServer.makeDatabase()
    let database = try await openBoard(url, as: "a")
    let persistence = middleware(database)
    var board = Board()
    board.columns.upsert(Column(id: "todo", name: "Todo"))
    board.cards.upsert(Card(id: 1, title: "first"))
    persistence.afterReduce(state: &board)
    // The cards table is gone (an operator's mistake): the column is rolled back too.
    try await TestServer.admin(url) { connection in
      try await connection.query("ALTER TABLE cards RENAME TO gone", logger: TestServer.quiet)
    }

    await #expect(throws: PersistenceMiddlewareError.self) { try await persistence.flush() }
    #expect(try await database.load(columnTable).isEmpty)
    #expect(persistence.status.pendingCount == 2)

    try await TestServer.admin(url) { connection in
      try await connection.query("ALTER TABLE gone RENAME TO cards", logger: TestServer.quiet)
    }
    try await persistence.shutdown()
    #expect(try await database.load(cardTable).map(\.title) == ["first"])
    #expect(try await database.load(columnTable).count == 1)
    database.close()
  }

  @Test(arguments: [
    ("a NUL character, which jsonb cannot hold", Card(id: 2, title: "bad\u{0}title")),
    ("a NaN, which JSON cannot hold", Card(id: 2, title: "bad", score: .nan)),
  ])
  func aRowThatCannotBeStoredIsSetAsideAndTheOthersCommit(_ what: String, bad: Card) async throws {
    let url = try await TestServer.makeDatabase()
    let database = try await openBoard(url, as: "a")
    let persistence = middleware(database)
    var board = Board()
    board.columns.upsert(Column(id: "todo", name: "Todo"))
    board.cards.upsert(Card(id: 1, title: "good"))
    board.cards.upsert(bad)
    board.cards.upsert(Card(id: 3, title: "also good"))
    persistence.afterReduce(state: &board)

    // Reported once, typed, with its id; everything else is in the database.
    guard case .rejected(let rejected) = try await flushError(persistence) else {
      Issue.record("\(what): expected a rejection")
      return
    }
    #expect(rejected.map(\.id) == ["2"] && rejected.map(\.table) == ["cards"], "\(what)")
    #expect(try await database.load(cardTable).map(\.id) == [1, 3], "\(what)")
    #expect(try await database.load(columnTable).count == 1, "\(what)")
    #expect(persistence.status.rejected == rejected && persistence.status.pendingCount == 0)

    // Later writes are not held up by it, and it is not reported again.
    board.cards.upsert(Card(id: 4, title: "later"))
    persistence.afterReduce(state: &board)
    try await persistence.flush()
    #expect(try await database.load(cardTable).map(\.id) == [1, 3, 4], "\(what)")

    // The app fixes it: written, at its place in the store.
    board.cards.upsert(Card(id: 2, title: "fixed"))
    persistence.afterReduce(state: &board)
    try await persistence.shutdown()
    #expect(try await database.load(cardTable).map(\.id) == [1, 2, 3, 4], "\(what)")
    #expect(persistence.status.rejected.isEmpty)
    database.close()
  }

  private func flushError(_ persistence: PersistenceMiddleware<Board>) async throws
    -> PersistenceMiddlewareError?
  {
    do {
      try await persistence.flush()
      return nil
    } catch {
      return error
    }
  }

  @Test func aStaleWriteIsAConflictNeverASilentOverwrite() async throws {
    let url = try await TestServer.makeDatabase()
    let seed = try await openBoard(url, as: "seed")
    try await seed.commit([cardTable.batchForTests([Card(id: 1, title: "original")])])
    let a = try await openBoard(url, as: "a")
    let b = try await openBoard(url, as: "b")
    var boardA = Board(cards: try await a.load(cardTable))
    var boardB = Board(cards: try await b.load(cardTable))
    let persistenceA = middleware(a)
    let persistenceB = middleware(b)

    boardA.cards.modify(1) { $0.title = "A's title" }
    persistenceA.afterReduce(state: &boardA)
    try await persistenceA.flush()
    boardB.cards.modify(1) { $0.title = "B's title" }
    persistenceB.afterReduce(state: &boardB)

    // B's flush meets A's version: refused, typed, retried and refused again.
    let conflicts = await conflictsOf { try await persistenceB.flush() }
    #expect(conflicts.map(\.id) == ["1"])
    #expect(conflicts.first?.expectedVersion == 1)
    #expect(conflicts.first?.currentVersion == 2)
    #expect(
      try conflicts.first.map { try cardTable.decode($0.currentJSON ?? "", id: "1") }?.title
        == "A's title")
    await #expect(throws: PersistenceMiddlewareError.self) { try await persistenceB.flush() }
    #expect(try await a.load(cardTable).first?.title == "A's title")

    // B keeps A's change: its own is dropped, and the next flush succeeds.
    b.resolve(try #require(conflicts.first), keeping: .theirs)
    try await persistenceB.flush()
    #expect(try await a.load(cardTable).first?.title == "A's title")
    #expect(persistenceB.status.pendingCount == 0)

    try await persistenceA.shutdown()
    try await persistenceB.shutdown()
    for database in [seed, a, b] { database.close() }
  }

  /// Two instances create the same id: the second insert meets the first one's row. The whole
  /// flush is refused (its other new row is not written), typed, and the row is left as the
  /// first instance wrote it.
  @Test func creatingAnIdAnotherInstanceCreatedIsAConflict() async throws {
    let url = try await TestServer.makeDatabase()
    let a = try await openBoard(url, as: "a")
    let b = try await openBoard(url, as: "b")
    try await a.commit([cardTable.batchForTests([Card(id: 7, title: "A's seven")])])
    var boardB = Board()
    let persistenceB = middleware(b)
    boardB.cards.upsert(contentsOf: [
      Card(id: 8, title: "B's eight"), Card(id: 7, title: "B's seven"),
    ])
    persistenceB.afterReduce(state: &boardB)

    let conflicts = await conflictsOf { try await persistenceB.flush() }
    #expect(conflicts.map(\.id) == ["7"])
    #expect(conflicts.first?.expectedVersion == nil)  // new to b
    #expect(conflicts.first?.currentVersion == 1)
    #expect(try await a.load(cardTable).map(\.title) == ["A's seven"])  // 8 rolled back too
    #expect(persistenceB.status.pendingCount == 2)
    #expect(try await TestServer.rowVersions(url, table: "cards") == ["7": 1])
    await #expect(throws: PersistenceMiddlewareError.self) { try await persistenceB.shutdown() }
    a.close()
    b.close()
  }

  @Test func anInsertOfMoreRowsThanOneStatementSendsIsOneFlushOrAConflictOnly() async throws {
    let url = try await TestServer.makeDatabase()
    let a = try await openBoard(url, as: "a")
    let b = try await openBoard(url, as: "b")
    // NB: a's row is in b's second statement (rows past `rowsPerInsert`).
    let taken = FlushWriter.rowsPerInsert + 5
    try await a.commit([cardTable.batchForTests([Card(id: taken, title: "A's")])])
    let count = FlushWriter.rowsPerInsert * 2 + 10
    var board = Board()
    let persistence = middleware(b)
    board.cards.upsert(contentsOf: (1...count).map { Card(id: $0, title: "card \($0)") })
    persistence.afterReduce(state: &board)
    let conflicts = await conflictsOf { try await persistence.flush() }
    #expect(conflicts.map(\.id) == ["\(taken)"])
    #expect(try await a.load(cardTable).map(\.title) == ["A's"])  // the first statement too
    #expect(persistence.status.pendingCount == count)

    // NB: once resolved, every statement's rows are written, in order, at their versions.
    b.resolve(try #require(conflicts.first), keeping: .mine)
    try await persistence.flush()
    let loaded = try await a.load(cardTable)
    #expect(loaded.count == count)
    #expect(loaded.map(\.id) == Array(1...count))
    #expect(loaded[taken]?.title == "card \(taken)")
    #expect(try await TestServer.rowVersions(url, table: "cards").count == count)
    try await persistence.shutdown()
    a.close()
    b.close()
  }

  @Test func resolvingForMineOverwritesOnPurpose() async throws {
    let url = try await TestServer.makeDatabase()
    let a = try await openBoard(url, as: "a")
    let b = try await openBoard(url, as: "b")
    try await a.commit([cardTable.batchForTests([Card(id: 1, title: "A")])])
    let conflict = try await onlyConflict {
      try await b.commit([cardTable.batchForTests([Card(id: 1, title: "B")])])
    }
    b.resolve(conflict, keeping: .mine)
    try await b.commit([cardTable.batchForTests([Card(id: 1, title: "B")])])
    #expect(try await a.load(cardTable).first?.title == "B")
    a.close()
    b.close()
  }

  @Test func lastWriterWinsOnlyWhenTheTableAsksForIt() async throws {
    let url = try await TestServer.makeDatabase()
    let table = PostgresTable<Card>("cards", conflictPolicy: .lastWriterWins)
    let a = try await openBoard(url, as: "a")
    let b = try await openBoard(url, as: "b")
    try await a.commit([table.batchForTests([Card(id: 1, title: "A")])])
    try await b.commit([table.batchForTests([Card(id: 1, title: "B")])])
    #expect(try await a.load(table).first?.title == "B")
    a.close()
    b.close()
  }

  @Test func deletingARowAnotherInstanceChangedIsAConflict() async throws {
    let url = try await TestServer.makeDatabase()
    let a = try await openBoard(url, as: "a")
    let b = try await openBoard(url, as: "b")
    try await a.commit([cardTable.batchForTests([Card(id: 1, title: "v1")])])
    _ = try await b.load(cardTable)
    try await a.commit([cardTable.batchForTests([Card(id: 1, title: "v2")])])

    let conflict = try await onlyConflict {
      try await b.commit([cardTable.batchForTests([], deleting: [1])])
    }
    #expect(conflict.expectedVersion == 1)
    #expect(conflict.currentVersion == 2)
    #expect(try await a.load(cardTable).first?.title == "v2")
    a.close()
    b.close()
  }

  /// Sequence numbers are taken in insertion order but become visible at commit: a reader
  /// "after the last number it saw" skips a row that a long transaction commits late. The feed
  /// holds back instead.
  @Test func theFeedNeverSkipsATransactionThatCommitsLate() async throws {
    let url = try await TestServer.makeDatabase()
    let a = try await openBoard(url, as: "a")
    let reader = try await openBoard(url, as: "reader")
    let start = try await reader.feedCursor()

    try await TestServer.admin(url) { slow in
      try await slow.query("BEGIN", logger: TestServer.quiet)
      try await slow.query(
        """
        INSERT INTO reduxkit_change_log (table_name, op, origin, entity_ids, versions)
        VALUES ('cards', 'write', 'slow', ARRAY['99'], ARRAY[1])
        """, logger: TestServer.quiet)
      // A later transaction takes a larger sequence number and commits first.
      try await a.commit([cardTable.batchForTests([Card(id: 1, title: "fast")])])

      let held = try await reader.changes(after: start)
      #expect(held.records.isEmpty)  // nothing past the open transaction

      try await slow.query("COMMIT", logger: TestServer.quiet)
    }
    // NB: any transaction open on the server (another test's, in another database) holds the
    // feed back a moment too; what it must never return is "a" without "slow".
    var read = try await reader.changes(after: start)
    for _ in 0..<1000 where read.records.isEmpty {
      try await Task.sleep(for: .milliseconds(10))
      read = try await reader.changes(after: start)
    }
    #expect(read.records.map(\.origin) == ["slow", "a"])
    #expect(read.records.map(\.sequence) == read.records.map(\.sequence).sorted())
    let after = try await reader.changes(after: read.next)
    #expect(after.records.isEmpty)
    a.close()
    reader.close()
  }

  @Test func badInputGetsATypedError() async throws {
    let url = try #require(TestServer.url)
    await #expect {
      _ = try await PostgresBackend(url: "mysql://nowhere", instance: "x", migrations: [])
    } throws: {
      if case .invalidURL = $0 as? PostgresBackendError { true } else { false }
    }
    let wrongPassword = url.replacingOccurrences(of: ":reduxkit-test@", with: ":wrong@")
    await #expect {
      _ = try await PostgresBackend(url: wrongPassword, instance: "x", migrations: [])
    } throws: {
      if case .authentication = $0 as? PostgresBackendError { true } else { false }
    }
    await #expect {
      _ = try await PostgresBackend(
        url: "postgres://reduxkit@127.0.0.1:1/postgres", instance: "x", migrations: [])
    } throws: {
      if case .cannotConnect = $0 as? PostgresBackendError { true } else { false }
    }

    let fresh = try await TestServer.makeDatabase()
    let newer = try await PostgresBackend(
      url: fresh, instance: "new", migrations: boardMigrations + [PostgresMigration("v2") { _ in }])
    newer.close()
    await #expect {
      _ = try await openBoard(fresh, as: "old")
    } throws: {
      if case .newerSchema(let unknown) = $0 as? PostgresBackendError {
        unknown == ["v2"]
      } else {
        false
      }
    }
  }
}

extension PostgresTable {
  /// A batch that writes `entities` and deletes `deletions`, as a writer's would.
  func batchForTests(_ entities: [Entity], deleting deletions: [Entity.ID] = []) -> PostgresBatch {
    batch(EntityChanges(writes: entities, deletions: deletions))
  }
}

/// The conflicts `body` failed with, directly or as a middleware's failed flush.
func conflictsOf(_ body: () async throws -> Void) async -> [PersistenceConflict] {
  do {
    try await body()
    return []
  } catch {
    var underlying: any Error = error
    if case .flushFailed(let cause, _)? = error as? PersistenceMiddlewareError {
      underlying = cause
    }
    guard case .conflicts(let found)? = underlying as? PostgresBackendError else { return [] }
    return found
  }
}

/// The one conflict `commit` failed with.
func onlyConflict(
  sourceLocation: SourceLocation = #_sourceLocation, _ commit: () async throws -> Void
) async throws -> PersistenceConflict {
  let conflicts = await conflictsOf(commit)
  #expect(conflicts.count == 1, "conflicts: \(conflicts)", sourceLocation: sourceLocation)
  return try #require(conflicts.first, sourceLocation: sourceLocation)
}
