import Foundation
package import Logging
package import ReduxKit

/// The board's SQLite file: its tables, its schema steps, and the store's persistence.
@MainActor
package struct BoardDatabase {
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
  ]

  package let database: SQLiteDatabase
  package let persistence: PersistenceMiddleware<BoardState>

  /// A private in-memory board, for tests.
  static func inMemory(logger: Logger) throws(SQLiteDatabaseError) -> BoardDatabase {
    BoardDatabase(database: try SQLiteDatabase.inMemory(migrations: migrations), logger: logger)
  }

  /// Opens (or creates) the board at `path`: checked first, so a file that is not a board's
  /// database is refused untouched.
  package init(path: String, logger: Logger) throws(SQLiteDatabaseError) {
    self.init(database: try SQLiteDatabase(path: path, migrations: Self.migrations), logger: logger)
  }

  /// Runs the board on an open database (an in-memory one in tests).
  init(database: SQLiteDatabase, logger: Logger) {
    self.database = database
    persistence = PersistenceMiddleware(
      database: database,
      writers: [
        // NB: columns first: a card's column is written before the card.
        StateWriter(keyPath: \.columns, table: Self.columns, database: database),
        StateWriter(keyPath: \.cards, table: Self.cards, database: database),
      ],
      logger: logger)
  }

  /// The saved board, or the default columns for a new one (saved at the first flush).
  package func load() async throws -> BoardState {
    let columns = try await database.load(Self.columns)
    let cards = try await database.load(Self.cards)
    guard columns.isEmpty else { return BoardState(columns: columns, cards: cards) }
    var fresh = EntityStore<Column>()
    for column in BoardState.defaultColumns { fresh[column.id] = column }
    return BoardState(columns: fresh, cards: cards)
  }

  /// The default place of the board's file: `$XDG_DATA_HOME/reduxkit-board/board.sqlite`
  /// (`~/.local/share` without XDG_DATA_HOME).
  package nonisolated static func defaultPath() -> String {
    let environment = ProcessInfo.processInfo.environment
    let dataHome =
      environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/share")
    return (dataHome as NSString).appendingPathComponent("reduxkit-board/board.sqlite")
  }
}
