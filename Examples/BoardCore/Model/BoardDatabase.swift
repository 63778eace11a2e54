import Foundation
import GRDB
package import Logging
package import ReduxKit

/// The board's SQLite file: its tables, its schema steps, the store's persistence, and the
/// feed of what other boards on the same file change.
@MainActor
package final class BoardDatabase {
  package nonisolated static let columns = EntityTable<Column>("columns")
  package nonisolated static let cards = EntityTable<Card>("cards")

  nonisolated static let migrations = [
    SQLiteMigration("v1") { db in
      try columns.create(in: db)
      try cards.create(in: db)
    },
    // NB: a board file made before row versions (its v1 tables lack them).
    SQLiteMigration("v2-versions") { db in
      try columns.addVersions(in: db)
      try cards.addVersions(in: db)
    },
    // NB: a board file made before typed columns (each card one JSON value).
    SQLiteMigration("v3-columns") { db in
      try columns.convertToColumns(in: db)
      try cards.convertToColumns(in: db)
    },
    // NB: a board file made before positions (rows in insertion order).
    SQLiteMigration("v4-positions") { db in
      try columns.addPositions(in: db)
      try cards.addPositions(in: db)
    },
    // NB: each column's cards in board order, for the first frame (``preview(rows:)``).
    SQLiteMigration("v5-cards-by-column") { db in
      try db.execute(sql: "CREATE INDEX cards_by_column ON cards (columnID, position)")
    },
  ]

  package let database: SQLiteDatabase
  package let persistence: PersistenceMiddleware<BoardState>
  private let logger: Logger
  /// Where the change log stood when the board was loaded: the feed starts there.
  private var cursor: SQLiteFeedCursor?
  private var following: Task<Void, Never>?

  /// A private in-memory board, for tests.
  static func inMemory(logger: Logger) throws(SQLiteDatabaseError) -> BoardDatabase {
    BoardDatabase(database: try SQLiteDatabase.inMemory(migrations: migrations), logger: logger)
  }

  /// Opens (or creates) the board at `path`: checked first, so a file that is not a board's
  /// database is refused untouched.
  package convenience init(path: String, logger: Logger) throws(SQLiteDatabaseError) {
    self.init(database: try SQLiteDatabase(path: path, migrations: Self.migrations), logger: logger)
  }

  /// Runs the board on an open database (an in-memory one in tests).
  init(database: SQLiteDatabase, logger: Logger) {
    self.database = database
    self.logger = logger
    persistence = PersistenceMiddleware(
      database: database,
      writers: [
        // NB: columns first: a card's column is written before the card.
        StateWriter(keyPath: \.columns, table: Self.columns, database: database),
        StateWriter(keyPath: \.cards, table: Self.cards, database: database),
      ],
      logger: logger)
  }

  /// The saved board; a new one is saved with the default columns first.
  package func load() async throws -> BoardState {
    // NB: before the tables, so that the feed brings whatever commits while they are read.
    cursor = try await database.feedCursor()
    var columns = try await database.load(Self.columns)
    if columns.isEmpty {
      do {
        try await database.persist(to: Self.columns)(BoardState.defaultColumns, [])
      } catch let error as SQLiteDatabaseError where !error.conflicts.isEmpty {
        // NB: another board on the file made them first: they are read below.
      }
      columns = try await database.load(Self.columns)
    }
    return BoardState(columns: columns, cards: try await database.load(Self.cards))
  }

  /// The first `rows` cards of each column and how many each holds, read through the index of
  /// cards by column: what the first frame shows while ``load()`` reads the rest. `nil` for a
  /// board with no columns yet (``load()`` makes them).
  ///
  /// NB: the columns' order as ``load()`` reads it (position, then rowid), and each column's
  /// cards in the board's order: the index ends with the rowid, which breaks ties as the load
  /// does.
  package func preview(rows: Int) async throws -> BoardPreview? {
    try await database.writer.read { db -> BoardPreview? in
      let columns = try Self.columns.fetchAll(
        db, sql: #"SELECT * FROM "columns" ORDER BY position, rowid"#)
      guard !columns.isEmpty else { return nil }
      var counts: [Int: Int] = [:]
      for row in try Row.fetchAll(db, sql: "SELECT columnID, count(*) FROM cards GROUP BY 1") {
        counts[row[0]] = row[1]
      }
      var firstCards: [Int: [Card]] = [:]
      for column in columns {
        firstCards[column.id] = try Self.cards.fetchAll(
          db, sql: "SELECT * FROM cards WHERE columnID = ? ORDER BY position, rowid LIMIT ?",
          arguments: [column.id, rows])
      }
      return BoardPreview(columns: columns, counts: counts, firstCards: firstCards)
    }
  }

  /// Follows what other boards on the same file change, from where ``load()`` read the file:
  /// each delivery goes to `deliver`, until ``stopFollowing()``.
  ///
  /// - Parameters:
  ///   - pollInterval: How often the feed asks whether another board wrote.
  ///   - clock: The clock of the polls.
  ///   - deliver: Dispatches a delivery to the board's store.
  func follow(
    pollInterval: Duration = .milliseconds(200), clock: any Clock<Duration> = ContinuousClock(),
    deliver: @escaping @MainActor (BoardAction) async -> Void
  ) {
    guard following == nil, let cursor else { return }
    let feed = database.changeFeed(
      from: cursor, pollInterval: pollInterval, clock: clock, logger: logger)
    feed.subscribe(Self.columns) { changes in await deliver(.remoteColumns(changes)) }
    feed.subscribe(Self.cards) { changes in await deliver(.remoteCards(changes)) }
    following = Task { await feed.run() }
  }

  /// Stops following the other boards.
  func stopFollowing() {
    following?.cancel()
    following = nil
  }

  /// The id a new card gets: from the file, so that no other board on it hands out the same.
  func newCardID() async throws -> Int {
    Int(try await database.newID(for: Self.cards))
  }

  /// The id a new column gets, from the file.
  func newColumnID() async throws -> Int {
    Int(try await database.newID(for: Self.columns))
  }

  /// The default place of the board's file: `$XDG_DATA_HOME/reduxkit-board/board.sqlite`
  /// (`$HOME/.local/share` without XDG_DATA_HOME, as the XDG specification says).
  package nonisolated static func defaultPath(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String {
    // NB: HOME before NSHomeDirectory(), which on Linux is the password file's home: a shell's
    // `~` (and `HOME=… board`) would otherwise name another file than the board's.
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    let dataHome =
      environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (home as NSString).appendingPathComponent(".local/share")
    return (dataHome as NSString).appendingPathComponent("reduxkit-board/board.sqlite")
  }
}
