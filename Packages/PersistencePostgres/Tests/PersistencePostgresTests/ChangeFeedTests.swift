import EntityTracking
import Foundation
import Persistence
import PersistencePostgres
import PersistencePostgresTesting
import PostgresNIO
import ReduxCoreTesting
import Testing

/// The change feed between instances, against a real server: other instances' flushes arrive
/// as remote changes that are not written back, a remote change never hides a local one, and
/// the feed survives a lost notification and a lost connection.
@MainActor
@Suite(
  .enabled(if: TestServer.isAvailable, Comment(rawValue: TestServer.skipReason)), .serialized,
  .timeLimit(.minutes(1)))
struct ChangeFeedTests {
  /// One app instance: its database, its state, its middleware and its feed.
  @MainActor
  final class Instance {
    let database: PostgresBackend
    var board: Board
    let persistence: PersistenceMiddleware<Board>
    let feed: ChangeFeed
    let deliveries: Deliveries<Card>
    private var following: Task<Void, Never>?

    /// The feed's clock: its polls and reconnection delays come when ``applyNext()`` advances it.
    let feedClock = ManualClock()

    /// - Parameter follows: Whether the feed runs from the start (else from ``follow()``).
    init(_ url: String, as name: String, follows: Bool = true) async throws {
      database = try await openBoard(url, as: name)
      let cursor = try await database.feedCursor()
      board = Board(
        columns: try await database.load(columnTable), cards: try await database.load(cardTable))
      persistence = PersistenceMiddleware(
        backend: database,
        writers: [
          StateWriter(keyPath: \.columns, table: columnTable, database: database),
          StateWriter(keyPath: \.cards, table: cardTable, database: database),
        ],
        // NB: flushes only when the test says so: no debounce timer flushes behind its back.
        clock: ManualClock())
      feed = database.changeFeed(
        from: cursor, pollInterval: .seconds(1), retention: .seconds(10), clock: feedClock)
      deliveries = Deliveries()
      feed.subscribe(cardTable) { [deliveries] in deliveries.yield($0) }
      if follows { follow() }
    }

    /// Runs the feed.
    func follow() {
      following = Task { [feed] in await feed.run() }
    }

    /// What a reducer does with an action: edit, then the middleware drains.
    func edit(_ body: (inout Board) -> Void) {
      body(&board)
      persistence.afterReduce(state: &board)
    }

    /// Waits for the next delivery, the feed's clock advanced a poll interval at a time until it
    /// comes, and applies it as the reducer of a remote action would.
    ///
    /// NB: a read returns a change only once every transaction that can write the log and was
    /// open when it committed has ended (another suite's flush, in parallel): the read that a
    /// notification or a poll starts may come back without it, and only a later poll finds it.
    /// The server tells no one when such a transaction ends, so the polls are paced in real
    /// time; the test's outcome does not depend on the pace, only how soon it ends.
    @discardableResult
    func applyNext() async throws -> (changes: RemoteChanges<Card>, heldBack: [Int]) {
      let polls = Task { [feedClock] in
        while !Task.isCancelled {
          // NB: not waitForSleepers(), which cancellation does not end.
          if feedClock.sleeperCount > 0 { await feedClock.advance(by: .seconds(1)) }
          do {
            try await Task.sleep(for: .milliseconds(50))
          } catch {
            return
          }
        }
      }
      defer { polls.cancel() }
      let changes = try await deliveries.next()
      var heldBack: [Int] = []
      edit { heldBack = $0.cards.apply(changes) }
      return (changes, heldBack)
    }

    func close() async throws {
      following?.cancel()
      try await persistence.shutdown()
      database.close()
    }
  }

  @Test func anotherInstancesFlushArrivesAsRemoteChangesAndIsNotWrittenBack() async throws {
    let url = try await TestServer.makeDatabase()
    let a = try await Instance(url, as: "a")
    let b = try await Instance(url, as: "b")

    a.edit { $0.cards.upsert(contentsOf: [Card(id: 1, title: "one"), Card(id: 2, title: "two")]) }
    try await a.persistence.flush()
    let (changes, heldBack) = try await b.applyNext()
    #expect(changes.changes.map(\.origin) == ["a", "a"])
    #expect(changes.changes.map(\.version) == [1, 1])
    #expect(heldBack.isEmpty)
    #expect(b.board.cards == a.board.cards)
    #expect(b.persistence.status.pendingCount == 0)  // hydrated: nothing to write back

    a.edit { $0.cards.remove(1) }
    try await a.persistence.flush()
    try await b.applyNext()
    #expect(b.board.cards.ids == [2])
    #expect(b.persistence.status.pendingCount == 0)

    // A's feed delivers B's change, never A's own.
    b.edit { $0.cards.modify(2) { $0.title = "two, by b" } }
    try await b.persistence.flush()
    let atA = try await a.applyNext()
    #expect(atA.changes.changes.map(\.origin) == ["b"])
    #expect(a.board.cards == b.board.cards)
    #expect(a.database.metrics.remoteChanges == 1)
    #expect(b.database.metrics.remoteChanges == 3)
    #expect(b.database.metrics.feedLag != nil)
    #expect(try await TestServer.rowVersions(url, table: "cards") == ["2": 2])
    try await a.close()
    try await b.close()
  }

  @Test func aRemoteChangeNeverHidesALocalEditWaitingForItsFlush() async throws {
    let url = try await TestServer.makeDatabase()
    let a = try await Instance(url, as: "a")
    let b = try await Instance(url, as: "b")
    a.edit { $0.cards.upsert(Card(id: 1, title: "original")) }
    try await a.persistence.flush()
    try await b.applyNext()

    // B edits (drained, waiting for its flush); then A's edit of the same card arrives.
    b.edit { $0.cards.modify(1) { $0.title = "B's title" } }
    a.edit { $0.cards.modify(1) { $0.title = "A's title" } }
    try await a.persistence.flush()
    let (_, heldBack) = try await b.applyNext()
    #expect(heldBack == [1])
    #expect(b.board.cards[1]?.title == "B's title")  // the local edit stays in view

    // B's edit was made against version 1: its flush is a conflict, not an overwrite.
    let conflicts = await conflictsOf { try await b.persistence.flush() }
    #expect(conflicts.map(\.expectedVersion) == [1])
    #expect(conflicts.map(\.currentVersion) == [2])
    #expect(try await a.database.load(cardTable)[1]?.title == "A's title")
    #expect(b.database.metrics.conflicts >= 1)

    // B keeps its edit on purpose: written over A's, and A's feed brings it back.
    b.database.resolve(try #require(conflicts.first), keeping: .mine)
    try await b.persistence.flush()
    try await a.applyNext()
    #expect(a.board.cards[1]?.title == "B's title")
    #expect(try await TestServer.rowVersions(url, table: "cards") == ["1": 3])
    try await a.close()
    try await b.close()
  }

  @Test func aLocalEditAfterARemoteChangeIsBasedOnIt() async throws {
    let url = try await TestServer.makeDatabase()
    let a = try await Instance(url, as: "a")
    let b = try await Instance(url, as: "b")
    a.edit { $0.cards.upsert(Card(id: 1, title: "original")) }
    try await a.persistence.flush()
    try await b.applyNext()
    a.edit { $0.cards.modify(1) { $0.title = "A's title" } }
    try await a.persistence.flush()
    try await b.applyNext()

    b.edit { $0.cards.modify(1) { $0.title = "B's title, after A's" } }
    try await b.persistence.flush()  // no conflict: B saw version 2
    #expect(try await TestServer.rowVersions(url, table: "cards") == ["1": 3])
    try await a.applyNext()
    #expect(a.board.cards[1]?.title == "B's title, after A's")
    try await a.close()
    try await b.close()
  }

  @Test func aLostNotificationIsFoundByThePoll() async throws {
    let url = try await TestServer.makeDatabase()
    let b = try await Instance(url, as: "b")
    let a = try await Instance(url, as: "a")
    a.edit { $0.cards.upsert(Card(id: 1, title: "notified")) }
    try await a.persistence.flush()
    try await b.applyNext()  // listening, caught up

    // A change written without NOTIFY: only the poll finds it.
    try await TestServer.admin(url) { connection in
      try await connection.query(
        """
        INSERT INTO cards (id, title, score, version, updated_by)
        VALUES ('7', 'silent', 0, 1, 'script')
        """, logger: TestServer.quiet)
      try await connection.query(
        """
        INSERT INTO reduxkit_change_log (table_name, op, origin, entity_ids, versions)
        VALUES ('cards', 'write', 'script', ARRAY['7'], ARRAY[1])
        """, logger: TestServer.quiet)
    }
    let (changes, _) = try await b.applyNext()
    #expect(changes.changes.map(\.origin) == ["script"])
    #expect(b.board.cards[7]?.title == "silent")
    try await a.close()
    try await b.close()
  }

  @Test func aKilledListeningConnectionReconnectsAndCatchesUp() async throws {
    let url = try await TestServer.makeDatabase()
    let a = try await Instance(url, as: "a")
    let b = try await Instance(url, as: "b")
    a.edit { $0.cards.upsert(Card(id: 1, title: "before")) }
    try await a.persistence.flush()
    try await b.applyNext()

    let killed = try await TestServer.terminate(url, applicationName: "reduxkit-feed-b")
    #expect(killed == 1)
    a.edit { $0.cards.upsert(Card(id: 2, title: "while b reconnects")) }
    try await a.persistence.flush()
    try await b.applyNext()
    #expect(b.board.cards == a.board.cards)
    #expect(b.database.metrics.feedReconnects >= 1)
    try await a.close()
    try await b.close()
  }

  /// A long transaction that does not write the log (a report, a session idle in a
  /// transaction, here or in another database) does not hold the feed back; one that holds the
  /// log's lock (a flush left open) does, for as long as it stays open, and says so.
  @Test func onlyATransactionThatCanWriteTheLogHoldsTheFeedBack() async throws {
    let url = try await TestServer.makeDatabase()
    let elsewhere = try await TestServer.makeDatabase()
    let a = try await Instance(url, as: "a")
    let b = try await Instance(url, as: "b")
    let start = try await b.database.feedCursor()
    for target in [url, elsewhere] {
      try await TestServer.admin(target) { report in
        // A transaction with an id of its own, left open.
        try await report.query("BEGIN", logger: TestServer.quiet)
        try await report.query("CREATE TABLE scratch (n int)", logger: TestServer.quiet)
        try await report.query("INSERT INTO scratch VALUES (1)", logger: TestServer.quiet)
        a.edit { $0.cards.upsert(Card(id: target == url ? 1 : 2, title: "while a report runs")) }
        try await a.persistence.flush()
        let (records, _) = try await b.database.changes(after: start)
        #expect(
          records.map(\.origin).contains("a"),
          "held back by a transaction of \(target == url ? "this" : "another") database")
        #expect(b.database.metrics.feedHeldBack == .zero)
        try await report.query("ROLLBACK", logger: TestServer.quiet)
      }
    }

    let before = try await b.database.feedCursor()
    try await TestServer.admin(url) { flush in
      // A flush's transaction, left open: it locked the log, and has an id.
      try await flush.query("BEGIN", logger: TestServer.quiet)
      try await flush.query(
        "LOCK TABLE reduxkit_change_log IN ROW EXCLUSIVE MODE", logger: TestServer.quiet)
      try await flush.query(
        "UPDATE cards SET version = version WHERE false", logger: TestServer.quiet)
      try await flush.query("SELECT pg_current_xact_id()", logger: TestServer.quiet)
      a.edit { $0.cards.upsert(Card(id: 3, title: "after the open flush")) }
      try await a.persistence.flush()
      let (held, _) = try await b.database.changes(after: before)
      // It committed after the open one began: it waits for it.
      #expect(!held.map(\.id).contains("3"))
      #expect(b.database.metrics.feedHeldBack > .zero)
      try await flush.query("COMMIT", logger: TestServer.quiet)
    }
    let (records, _) = try await b.database.changes(after: before)
    #expect(records.map(\.id).contains("3"))
    #expect(b.database.metrics.feedHeldBack == .zero)
    try await a.close()
    try await b.close()
  }

  /// A flush that commits while the feed reads is never passed over: three writers commit log
  /// rows as fast as they can while another instance reads, and every row is delivered, once.
  /// (The read's bound once looked at the locks twice, and a flush that committed in between
  /// counted as a transaction that cannot write the log: about one read in 150 lost a row.)
  @Test func everyRowCommittedWhileTheFeedReadsIsDelivered() async throws {
    let url = try await TestServer.makeDatabase()
    let reader = try await openBoard(url, as: "reader")
    var cursor = try await reader.feedCursor()
    let stop = Gate()
    let writers = Task {
      try await withThrowingTaskGroup { group in
        for writer in 0..<3 {
          group.addTask {
            try await TestServer.admin(url) { connection in
              var number = 0
              // NB: one statement, a flush's shape: it locks the log before it has an id.
              while !stop.isOpen {
                try await connection.query(
                  """
                  INSERT INTO reduxkit_change_log (table_name, op, origin, entity_ids, versions)
                  VALUES ('cards', 'upsert', \("writer-\(writer)"), \(["\(writer)-\(number)"]),
                    \([Int64(1)]))
                  """, logger: TestServer.quiet)
                number += 1
              }
            }
          }
        }
        try await group.waitForAll()
      }
    }
    var delivered: [String] = []
    for _ in 0..<150 {
      let (records, next) = try await reader.changes(after: cursor)
      delivered += records.map(\.id)
      cursor = next
    }
    stop.open()
    try await writers.value
    let (rest, _) = try await reader.changes(after: cursor)
    delivered += rest.map(\.id)
    let written = try await TestServer.admin(url) { connection in
      var ids: [String] = []
      let rows = try await connection.query(
        "SELECT unnest(entity_ids) FROM reduxkit_change_log", logger: TestServer.quiet)
      for try await id in rows.decode(String.self) { ids.append(id) }
      return ids
    }
    #expect(written.count > 1_000, "the writers wrote while the feed read")
    #expect(delivered.count == Set(delivered).count, "a row delivered twice")
    #expect(Set(written).subtracting(delivered).sorted() == [], "rows never delivered")
    reader.close()
  }

  /// A row of the change log is deleted once every live feed has read it; a feed that stopped
  /// reporting keeps the rows it has not read only for the retention.
  @Test func theLogKeepsWhatALiveFeedHasNotRead() async throws {
    let url = try await TestServer.makeDatabase()
    let a = try await openBoard(url, as: "a")
    let b = try await openBoard(url, as: "b")
    _ = try await a.feedCursor()
    _ = try await b.feedCursor()
    let persistence = PersistenceMiddleware<Board>(
      backend: a, writers: [StateWriter(keyPath: \.cards, table: cardTable, database: a)],
      clock: ManualClock())
    var board = Board()
    for id in 1...10 {
      board.cards.upsert(Card(id: id, title: "card \(id)"))
      persistence.afterReduce(state: &board)
      try await persistence.flush()
    }
    #expect(try await logRows(url) == 10)
    _ = try await a.feedCursor()
    #expect(try await logRows(url) == 10)  // b has read none of them
    _ = try await b.feedCursor()
    #expect(try await logRows(url) == 0)  // both have

    // c reports, then stops: its place keeps the rows, until it is older than the retention.
    let c = try await openBoard(url, as: "c")
    _ = try await c.feedCursor()
    board.cards.upsert(Card(id: 11, title: "card 11"))
    persistence.afterReduce(state: &board)
    try await persistence.flush()
    _ = try await a.feedCursor()
    _ = try await b.feedCursor()
    #expect(try await logRows(url) == 1)
    try await TestServer.admin(url) { connection in
      try await connection.query(
        "UPDATE reduxkit_feed_readers SET seen_at = now() - interval '1 hour' WHERE instance = 'c'",
        logger: TestServer.quiet)
    }
    _ = try await a.feedCursor()
    #expect(try await logRows(url) == 0)
    try await persistence.shutdown()
    for database in [a, b, c] { database.close() }
  }

  /// A feed away longer than the retention (its place forgotten, the rows it had not read
  /// deleted) compares the tables with what it has seen, and delivers the differences.
  @Test func aFeedWhosePlaceWasForgottenComparesTheTables() async throws {
    let url = try await TestServer.makeDatabase()
    let a = try await Instance(url, as: "a")
    let b = try await Instance(url, as: "b")
    a.edit { $0.cards.upsert(contentsOf: [Card(id: 1, title: "one"), Card(id: 2, title: "two")]) }
    try await a.persistence.flush()
    try await b.applyNext()
    // b is away: its place is forgotten and the log pruned past it.
    try await TestServer.admin(url) { connection in
      try await connection.query(
        "DELETE FROM reduxkit_feed_readers WHERE instance = 'b'", logger: TestServer.quiet)
    }
    a.edit {
      $0.cards.modify(1) { $0.title = "one, edited" }
      $0.cards.remove(2)
      $0.cards.upsert(Card(id: 3, title: "three"))
    }
    try await a.persistence.flush()
    try await TestServer.admin(url) { connection in
      try await connection.query("DELETE FROM reduxkit_change_log", logger: TestServer.quiet)
    }
    try await b.applyNext()
    #expect(
      b.board.cards.values.sorted { $0.id < $1.id } == a.board.cards.values.sorted { $0.id < $1.id }
    )
    #expect(b.persistence.status.pendingCount == 0)
    try await a.close()
    try await b.close()
  }

  /// A row deleted and made again starts above every version of the old row: a reader that saw
  /// the old one takes the new one, whether it reads the log (the deletion and the new row in
  /// one read) or, having lost its place, compares the tables.
  @Test(arguments: [false, true])
  func aRowDeletedAndMadeAgainReachesAReaderThatSawTheOldOne(placeForgotten: Bool) async throws {
    let url = try await TestServer.makeDatabase()
    let a = try await Instance(url, as: "a")
    a.edit { $0.cards.upsert(Card(id: 1, title: "old")) }
    try await a.persistence.flush()
    for edit in 1...3 {
      a.edit { $0.cards.modify(1) { $0.title = "old, edit \(edit)" } }
      try await a.persistence.flush()
    }
    // B loads the old row at version 4, and reads nothing more until A is done.
    let b = try await Instance(url, as: "b", follows: false)
    #expect(b.board.cards[1]?.title == "old, edit 3")
    a.edit { $0.cards.remove(1) }
    try await a.persistence.flush()
    a.edit { $0.cards.upsert(Card(id: 1, title: "new")) }
    try await a.persistence.flush()
    a.edit { $0.cards.modify(1) { $0.title = "new, edited" } }
    try await a.persistence.flush()
    let made = try #require(try await TestServer.rowVersions(url, table: "cards")["1"])
    #expect(made > 5)  // above the old row's deletion, at version 5
    if placeForgotten {
      try await TestServer.admin(url) { connection in
        try await connection.query(
          "DELETE FROM reduxkit_feed_readers WHERE instance = 'b'", logger: TestServer.quiet)
        try await connection.query("DELETE FROM reduxkit_change_log", logger: TestServer.quiet)
      }
    }
    b.follow()
    while b.board.cards[1]?.title != "new, edited" { try await b.applyNext() }
    #expect(b.persistence.status.pendingCount == 0)
    // B's next edit is based on the new row's version: no conflict.
    b.edit { $0.cards.modify(1) { $0.title = "new, by b" } }
    try await b.persistence.flush()
    #expect(try await TestServer.rowVersions(url, table: "cards") == ["1": made + 1])
    try await a.close()
    try await b.close()
  }

  private func logRows(_ url: String) async throws -> Int {
    try await TestServer.admin(url) { connection in
      var count = 0
      for try await value in try await connection.query(
        "SELECT count(*)::bigint FROM reduxkit_change_log", logger: TestServer.quiet
      ).decode(Int64.self) {
        count = Int(value)
      }
      return count
    }
  }

  @Test func aConnectionLostMidFlushKeepsTheChangesPendingForTheRetry() async throws {
    let url = try await TestServer.makeDatabase()
    let a = try await Instance(url, as: "a")
    a.edit { $0.cards.upsert(Card(id: 1, title: "original")) }
    try await a.persistence.flush()

    a.edit { $0.cards.modify(1) { $0.title = "edited" } }
    // A lock holds the flush inside its transaction; then its session is terminated.
    let failure = try await TestServer.admin(url) { lock in
      try await lock.query("BEGIN", logger: TestServer.quiet)
      try await lock.query("SELECT * FROM cards FOR UPDATE", logger: TestServer.quiet)
      let flushing = Task { try await a.persistence.flush() }
      let killed = try await TestServer.terminateWhenWaitingForLock(url)
      #expect(killed == 1)
      try await lock.query("ROLLBACK", logger: TestServer.quiet)
      let failure = await flushing.result
      guard case .failure(let error) = failure else { return nil as String? }
      return "\(error)"
    }
    #expect(failure?.contains("connection to PostgreSQL was lost") == true)
    #expect(a.persistence.status.pendingCount == 1)
    try await a.persistence.flush()  // the retry, on a new connection
    #expect(try await a.database.load(cardTable)[1]?.title == "edited")
    try await a.close()
  }
}

/// Collects what a feed delivers, for a test to await one by one.
final class Deliveries<Entity: Codable & Identifiable & Equatable & Sendable>: Sendable
where Entity.ID: LosslessStringConvertible & Sendable {
  private let stream: AsyncStream<RemoteChanges<Entity>>
  private let continuation: AsyncStream<RemoteChanges<Entity>>.Continuation

  init() {
    (stream, continuation) = AsyncStream.makeStream()
  }

  func yield(_ changes: RemoteChanges<Entity>) {
    continuation.yield(changes)
  }

  /// The next delivery. NB: no timer of its own: the suite's time limit bounds the wait.
  func next() async throws -> RemoteChanges<Entity> {
    for await changes in stream { return changes }
    throw CancellationError()
  }
}
