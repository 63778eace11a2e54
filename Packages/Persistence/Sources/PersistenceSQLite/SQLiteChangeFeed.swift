import GRDB
public import Logging
public import Persistence
import ReduxCore
import Synchronization

/// Where a process is in a SQLite file's change log: every change numbered up to it has been
/// read.
public struct SQLiteFeedCursor: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The number of the last change-log row read (0: none).
  let sequence: Int64

  public var description: String { "change \(sequence)" }

  /// Whether `lhs` is before `rhs` in the log.
  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.sequence < rhs.sequence }
}

/// Follows a SQLite file's change log for a process: the changes other processes commit to
/// the file (an app and its extension, two windows of a board) arrive, as ``/Persistence/RemoteChanges``,
/// through the closure each ``subscribe(_:deliver:)`` gave; the app dispatches them as ordinary
/// actions, and its reducer applies them with `EntityStore.apply(_:)`, which records nothing, so
/// they are not written back.
///
/// ```swift
/// let cursor = try await database.feedCursor()   // before loading: nothing is missed
/// state.notes = try await database.load(notes)
/// let feed = database.changeFeed(from: cursor)
/// feed.subscribe(notes) { changes in await store.dispatchWithResult(.notesChanged(changes)) }
/// Task { await feed.run() }
/// ```
///
/// SQLite has no notification between processes: the feed holds a read-only connection of its
/// own and asks it, every `pollInterval`, for `PRAGMA data_version`, which changes only when
/// another connection committed (a read of shared memory, no query). Only then does it read the
/// log after its cursor, in one read transaction with the rows the log names. The model is the
/// PostgreSQL `ChangeFeed`'s: it never skips a commit (SQLite's commits are numbered in commit
/// order), never delivers this process's own changes, and a change to a row with a local edit
/// waiting for a flush is held back (the flush reports the conflict). A feed that fell further
/// behind than the log keeps (``SQLiteDatabase/changeLogRetention``: a process suspended for
/// longer) compares the whole tables with what it has seen instead, and delivers the
/// differences.
public final class SQLiteChangeFeed: Sendable {
  /// Reads one table's changes in the feed's read transaction, and returns their delivery.
  private typealias Read =
    @Sendable (_ db: Database, _ after: Int64, _ through: Int64, _ lostPlace: Bool) throws ->
    (@Sendable () async -> Void)?

  private struct State {
    var cursor: SQLiteFeedCursor
    var subscriptions: [String: Read] = [:]
    var isRunning = false
  }

  private let database: SQLiteDatabase
  private let pollInterval: Duration
  private let clock: any Clock<Duration>
  private let logger: Logger
  private let state: Mutex<State>

  init(
    database: SQLiteDatabase, cursor: SQLiteFeedCursor, pollInterval: Duration,
    clock: any Clock<Duration>, logger: Logger
  ) {
    self.database = database
    self.pollInterval = pollInterval
    self.clock = clock
    self.logger = logger
    state = Mutex(State(cursor: cursor))
  }

  /// Where the feed has read to.
  public var cursor: SQLiteFeedCursor { state.withLock { $0.cursor } }

  /// Delivers the changes other processes make to `table`. Subscribe before ``run()``; a
  /// second subscription to a table replaces the first.
  ///
  /// - Parameters:
  ///   - table: The table to follow.
  ///   - deliver: Receives each read's changes to the table, in commit order, one change per
  ///     row (its latest). Dispatch them to the store; the feed reads on once it returns (await
  ///     `dispatchWithResult`, so that a full queue holds the feed back rather than losing
  ///     them).
  public func subscribe<Entity>(
    _ table: EntityTable<Entity>,
    deliver: @escaping @Sendable (RemoteChanges<Entity>) async -> Void
  ) {
    let book = database.book
    let origin = database.instance
    let logger = logger
    let read: Read = { db, after, through, lostPlace in
      let changes =
        lostPlace
        ? try table.differences(from: book, in: db, logger: logger)
        : try table.remoteChanges(
          after: after, through: through, skipping: origin, book: book, in: db, logger: logger)
      guard !changes.changes.isEmpty else { return nil }
      return { await deliver(changes) }
    }
    state.withLock { $0.subscriptions[table.name] = read }
  }

  /// Follows the log until the task is cancelled or the database is closed. A failure to read
  /// (the file locked for longer than the busy timeout, say) is logged and the read tried again
  /// at the next poll, over a new connection.
  ///
  /// It runs off the caller's actor (its polls read the file), and delivers from there.
  @concurrent
  public func run() async {
    let alreadyRunning = state.withLock { state in
      defer { state.isRunning = true }
      return state.isRunning
    }
    guard !alreadyRunning else {
      logger.error("SQLiteChangeFeed.run() called while the feed runs already; ignored")
      return
    }
    defer { state.withLock { $0.isRunning = false } }
    guard database.path != ":memory:" else {
      logger.notice(
        "an in-memory database has no other process: its change feed has nothing to follow")
      return
    }
    var connection: DatabaseQueue?
    var lastVersion: Int?
    while !Task.isCancelled, !database.hasClosed {
      do {
        let reader = try connection ?? openConnection()
        connection = reader
        let version = try reader.inDatabase { db in
          try Int.fetchOne(db, sql: "PRAGMA data_version")
        }
        if version != lastVersion {
          try await catchUp(on: reader)
          lastVersion = version
        }
      } catch {
        logger.warning(
          "change feed: reading the log failed; trying again at the next poll",
          metadata: ["error": "\(SQLiteDatabaseError(error, path: database.path))"])
        connection = nil
        lastVersion = nil
      }
      do {
        try await ClockReader(clock).sleep(for: pollInterval)()
      } catch {
        return
      }
    }
  }

  private func openConnection() throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.readonly = true
    configuration.busyMode = database.writer.configuration.busyMode
    configuration.label = "reduxkit-feed"
    return try DatabaseQueue(path: database.path, configuration: configuration)
  }

  /// Reads the log from the cursor and delivers what the subscriptions follow.
  private func catchUp(on connection: DatabaseQueue) async throws {
    let (cursor, subscriptions) = state.withLock { ($0.cursor, $0.subscriptions) }
    let (deliveries, next): ([@Sendable () async -> Void], Int64) = try await connection.read {
      [logger] db in
      guard try ChangeLog.exists(in: db), let bounds = try ChangeLog.bounds(in: db),
        bounds.last > cursor.sequence
      else { return ([], cursor.sequence) }
      // NB: the numbers are contiguous; the next one gone means the log was pruned past it.
      let lostPlace = bounds.first > cursor.sequence + 1
      if lostPlace {
        logger.warning(
          "change feed: fell behind the change log's retention; comparing the tables instead",
          metadata: ["cursor": "\(cursor)", "first": "\(bounds.first)"])
      }
      var deliveries: [@Sendable () async -> Void] = []
      for (_, read) in subscriptions.sorted(by: { $0.key < $1.key }) {
        if let delivery = try read(db, cursor.sequence, bounds.last, lostPlace) {
          deliveries.append(delivery)
        }
      }
      return (deliveries, bounds.last)
    }
    for delivery in deliveries { await delivery() }
    state.withLock { $0.cursor = SQLiteFeedCursor(sequence: next) }
  }
}

extension SQLiteDatabase {
  /// The change log's position now: take it before loading, and a feed made from it delivers
  /// every change the load may have missed (some it already saw, at versions it already has,
  /// which it skips).
  ///
  /// - Returns: The cursor.
  /// - Throws: ``SQLiteDatabaseError/closed(path:)`` after ``close()``, or the database's
  ///   failure.
  public func feedCursor() async throws(SQLiteDatabaseError) -> SQLiteFeedCursor {
    guard !hasClosed else { throw .closed(path: path) }
    do {
      return try await writer.read { db in
        guard try ChangeLog.exists(in: db) else { return SQLiteFeedCursor(sequence: 0) }
        return SQLiteFeedCursor(sequence: try ChangeLog.bounds(in: db)?.last ?? 0)
      }
    } catch {
      throw SQLiteDatabaseError(error, path: path)
    }
  }

  /// A change feed for this process, reading from `cursor` (take it with ``feedCursor()``
  /// before loading the state).
  ///
  /// - Parameters:
  ///   - cursor: Where to start reading.
  ///   - pollInterval: How often the feed asks whether another process committed (a read of
  ///     shared memory): the longest a change waits before it is read.
  ///   - clock: The clock the polls read.
  ///   - logger: Receives the feed's failures and its rows that do not decode.
  /// - Returns: The feed; subscribe, then ``SQLiteChangeFeed/run()`` it.
  public func changeFeed(
    from cursor: SQLiteFeedCursor, pollInterval: Duration = .milliseconds(200),
    clock: any Clock<Duration> = ContinuousClock(),
    logger: Logger = Logger(label: "ReduxKit.PersistenceSQLite")
  ) -> SQLiteChangeFeed {
    SQLiteChangeFeed(
      database: self, cursor: cursor, pollInterval: pollInterval, clock: clock, logger: logger)
  }
}
