import EntityTracking
import Foundation
import GRDB
import Persistence
import PersistenceSQLite
import Testing

/// An entity type that changes between releases of an app, on a real file: the rows saved by
/// the first release load in the next one after a one-line migration step, and a change the
/// stored rows cannot satisfy is refused before anything is written.
@Suite(.serialized)
struct SchemaEvolutionTests {
  /// The first release's card.
  struct Card: Codable, Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var estimate: Int
  }

  /// The saved cards, and a file holding them as the first release left it.
  static let saved = [
    Card(id: 1, title: "Write the docs", estimate: 3), Card(id: 2, title: "Ship", estimate: 5),
  ]
  static let v1 = SQLiteMigration("v1") { db in try EntityTable<Card>("cards").create(in: db) }

  private func fileOfTheFirstRelease() async throws -> (TemporaryDirectory, String) {
    let directory = try TemporaryDirectory()
    let path = directory.file("app.sqlite").path
    let database = try SQLiteDatabase(path: path, migrations: [Self.v1])
    try await database.persist(to: EntityTable<Card>("cards"))(Self.saved, [])
    try database.close()
    return (directory, path)
  }

  /// Loads `table` without the migration it needs: refused with an error `matches` accepts, the
  /// file left byte for byte as it was.
  private func expectRefusal<Entity>(
    _ table: EntityTable<Entity>, in directory: TemporaryDirectory, path: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ matches: (SQLiteDatabaseError) -> Bool
  ) async throws {
    let before = try FileSnapshot(directory.url)
    let database = try SQLiteDatabase(path: path, migrations: [Self.v1])
    do {
      _ = try await database.load(table)
      Issue.record("the load was not refused", sourceLocation: sourceLocation)
    } catch {
      #expect(matches(error), "unexpected \(error)", sourceLocation: sourceLocation)
    }
    try database.close()
    #expect(try FileSnapshot(directory.url) == before, sourceLocation: sourceLocation)
  }

  // MARK: - Added

  struct CardWithDue: Codable, Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var estimate: Int
    var due: Date?
  }

  @Test func anOptionalPropertyAddedLoadsTheOldRowsAfterOneLine() async throws {
    let (directory, path) = try await fileOfTheFirstRelease()
    let cards = EntityTable<CardWithDue>("cards")
    try await expectRefusal(cards, in: directory, path: path) { error in
      guard case .missingColumn(table: "cards", column: "due", declaration: #""due" REAL"#) = error
      else { return false }
      return "\(error)".contains("addColumns(in: db)")
    }

    let database = try SQLiteDatabase(
      path: path,
      migrations: [Self.v1, SQLiteMigration("v2-due") { db in try cards.addColumns(in: db) }])
    let loaded = try await database.load(cards)
    #expect(loaded.values.map(\.title) == Self.saved.map(\.title))
    #expect(loaded.values.allSatisfy { $0.due == nil })
    let due = Date(timeIntervalSinceReferenceDate: 817_457_988.122_266_8)
    try await database.persist(to: cards)(
      [CardWithDue(id: 3, title: "Due", estimate: 1, due: due)], [])
    #expect(try await database.load(cards)[3]?.due == due)
    try database.close()
  }

  struct CardWithPriority: Codable, Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var estimate: Int
    var priority: Int

    init(id: Int, title: String, estimate: Int, priority: Int) {
      (self.id, self.title, self.estimate, self.priority) = (id, title, estimate, priority)
    }

    // A property with a default: a row without it is at normal priority.
    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      id = try container.decode(Int.self, forKey: .id)
      title = try container.decode(String.self, forKey: .title)
      estimate = try container.decode(Int.self, forKey: .estimate)
      priority = try container.decodeIfPresent(Int.self, forKey: .priority) ?? 2
    }
  }

  @Test func aPropertyWithADefaultLoadsTheOldRowsWithIt() async throws {
    let (directory, path) = try await fileOfTheFirstRelease()
    defer { withExtendedLifetime(directory) {} }
    let cards = EntityTable<CardWithPriority>("cards")
    let database = try SQLiteDatabase(
      path: path,
      migrations: [Self.v1, SQLiteMigration("v2") { db in try cards.addColumns(in: db) }])
    #expect(try await database.load(cards).values.map(\.priority) == [2, 2])
    try await database.persist(to: cards)(
      [CardWithPriority(id: 1, title: "Urgent", estimate: 3, priority: 0)], [])
    #expect(try await database.load(cards).values.map(\.priority) == [0, 2])
    try database.close()
  }

  struct CardWithOwner: Codable, Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var estimate: Int
    var owner: String
  }

  @Test func aRequiredPropertyAddedNeedsTheOldRowsValue() async throws {
    let (directory, path) = try await fileOfTheFirstRelease()
    let cards = EntityTable<CardWithOwner>("cards")
    // Without a value for the stored rows, the migration fails whole: the file as it was.
    let before = try FileSnapshot(directory.url)
    #expect {
      _ = try SQLiteDatabase(
        path: path,
        migrations: [Self.v1, SQLiteMigration("v2") { db in try cards.addColumns(in: db) }])
    } throws: { error in
      guard
        case .missingColumn(table: "cards", column: "owner", _)? = error as? SQLiteDatabaseError
      else { return false }
      return "\(error)".contains(#"defaults: ["owner": …]"#)
    }
    #expect(try FileSnapshot(directory.url) == before)

    let database = try SQLiteDatabase(
      path: path,
      migrations: [
        Self.v1,
        SQLiteMigration("v2") { db in try cards.addColumns(in: db, defaults: ["owner": "me"]) },
      ])
    #expect(try await database.load(cards).values.map(\.owner) == ["me", "me"])
    try database.close()
  }

  // MARK: - Renamed, removed, retyped

  struct CardWithHeadline: Codable, Identifiable, Equatable, Sendable {
    let id: Int
    var headline: String
    var estimate: Int
  }

  @Test func aRenamedPropertyKeepsItsValues() async throws {
    let (directory, path) = try await fileOfTheFirstRelease()
    let cards = EntityTable<CardWithHeadline>("cards")
    try await expectRefusal(cards, in: directory, path: path) { error in
      if case .missingColumn(table: "cards", column: "headline", _) = error { true } else { false }
    }
    let database = try SQLiteDatabase(
      path: path,
      migrations: [
        Self.v1,
        SQLiteMigration("v2") { db in try cards.renameColumn("title", to: "headline", in: db) },
      ])
    #expect(try await database.load(cards).values.map(\.headline) == Self.saved.map(\.title))
    try database.close()
  }

  struct CardWithoutEstimate: Codable, Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
  }

  @Test func aRemovedPropertyNeedsNoMigrationAndARebuildDropsIt() async throws {
    let (directory, path) = try await fileOfTheFirstRelease()
    defer { withExtendedLifetime(directory) {} }
    let cards = EntityTable<CardWithoutEstimate>("cards")
    do {
      let database = try SQLiteDatabase(path: path, migrations: [Self.v1])
      #expect(try await database.load(cards).values.map(\.title) == Self.saved.map(\.title))
      try await database.persist(to: cards)([CardWithoutEstimate(id: 3, title: "New")], [])
      #expect(try await database.load(cards).count == 3)
      try database.close()
    }
    let database = try SQLiteDatabase(
      path: path, migrations: [Self.v1, SQLiteMigration("v2") { db in try cards.rebuild(in: db) }])
    #expect(try await database.load(cards).values.map(\.id) == [1, 2, 3])
    let columns = try await database.writer.read { db in try db.columns(in: "cards").map(\.name) }
    #expect(columns == ["id", "title", "version", "position"])
    try database.close()
  }

  struct CardWithTextEstimate: Codable, Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var estimate: String
  }

  @Test func aRetypedPropertyIsRefusedUntilItsValuesAreConverted() async throws {
    let (directory, path) = try await fileOfTheFirstRelease()
    let cards = EntityTable<CardWithTextEstimate>("cards")
    try await expectRefusal(cards, in: directory, path: path) { error in
      guard
        case .columnTypeChanged(
          table: "cards", column: "estimate", stored: "INTEGER", expected: "TEXT") =
          error
      else { return false }
      return "\(error)".contains("rebuild(in: db")
    }
    // Refused at a flush too, before anything is written.
    do {
      let database = try SQLiteDatabase(path: path, migrations: [Self.v1])
      await #expect(throws: SQLiteDatabaseError.self) {
        try await database.persist(to: cards)(
          [CardWithTextEstimate(id: 9, title: "x", estimate: "L")], [])
      }
      try database.close()
    }
    let database = try SQLiteDatabase(
      path: path,
      migrations: [
        Self.v1,
        SQLiteMigration("v2") { db in
          try cards.rebuild(in: db, values: ["estimate": "CAST(estimate AS TEXT) || ' days'"])
        },
      ])
    #expect(try await database.load(cards).values.map(\.estimate) == ["3 days", "5 days"])
    // Ids, versions and order kept: a write based on the version loaded succeeds.
    try await database.persist(to: cards)(
      [CardWithTextEstimate(id: 2, title: "Ship", estimate: "a week")], [])
    #expect(try await database.load(cards).values.map(\.estimate) == ["3 days", "a week"])
    try database.close()
  }

  // MARK: - Columns

  enum Status: String, Codable, CaseIterable, Sendable { case open, done }

  enum Estimate: Codable, Equatable, Sendable, SchemaSample {
    case points(Int)
    case size(String)
    static var schemaSample: Estimate { .points(1) }
  }

  struct Checklist: Codable, Equatable, Sendable {
    var items: [String]
    var checkedAt: Date?
  }

  /// Every kind of property a column holds.
  struct Everything: Codable, Identifiable, Equatable, Sendable {
    let id: UUID
    var title: String
    var count: Int64
    var ratio: Double
    var isDone: Bool
    var due: Date
    var cleared: Date?
    var status: Status
    var estimate: Estimate
    var checklist: Checklist
    var tags: [String]
    var scores: [String: Int]
    var avatar: Data
    var link: URL
  }

  @Test func everyPropertyIsAColumnOfItsTypeAndLoadsBackEqual() async throws {
    let table = EntityTable<Everything>("things")
    let database = try SQLiteDatabase.inMemory(
      migrations: [SQLiteMigration("v1") { db in try table.create(in: db) }])
    let thing = Everything(
      id: UUID(), title: "ünïcödé", count: .min, ratio: 0.1, isDone: true,
      due: Date(timeIntervalSinceReferenceDate: 817_457_988.122_266_8), cleared: nil,
      status: .done, estimate: .size("L"),
      checklist: Checklist(items: ["a"], checkedAt: Date(timeIntervalSinceReferenceDate: 0.000_1)),
      tags: ["x", "y"], scores: ["a": 1], avatar: Data([0, 1, 255]),
      link: URL(string: "https://example.com/a?b=c")!)
    try await database.persist(to: table)([thing], [])
    #expect(try await database.load(table).values == [thing])

    let stored = try database.writer.read { db in
      try Row.fetchOne(
        db,
        sql: """
          SELECT typeof(title), typeof(count), typeof(ratio), typeof(isDone), typeof(due),
            typeof(cleared), status, json_extract(checklist, '$.items[0]'), typeof(avatar),
            link, (SELECT group_concat(value) FROM json_each(tags))
          FROM things
          """)
    }
    let row = try #require(stored)
    #expect(
      (0..<6).map { row[$0] as String } == ["text", "integer", "real", "integer", "real", "null"])
    #expect(row[6] as String == "done")
    #expect(row[7] as String == "a")
    #expect(row[8] as String == "blob")
    #expect(row[9] as String == "https://example.com/a?b=c")
    #expect(row[10] as String == "x,y")
    let declared = try await database.writer.read { db in
      try db.columns(in: "things").map { "\($0.name) \($0.type)" }
    }
    #expect(
      declared == [
        "id ", "title TEXT", "count INTEGER", "ratio REAL", "isDone BOOLEAN", "due REAL",
        "cleared REAL", "status TEXT", "estimate TEXT", "checklist TEXT", "tags TEXT",
        "scores TEXT", "avatar BLOB", "link TEXT", "version INTEGER", "position REAL",
      ])
    try database.close()
  }

  @Test func aNonFiniteNumberIsRefusedNotStoredAsNull() async throws {
    let database = try SQLiteDatabase.inMemory(migrator: libraryMigrator())
    await #expect(throws: RejectedWrites.self) {
      try await database.persist(to: noteTable)([Note(id: "a", title: "x", score: .infinity)], [])
    }
    #expect(try count("notes", in: database) == 0)
  }

  enum Payload: Codable, Equatable, Sendable {
    case text(String)
    case number(Int)
  }

  struct Unsampled: Codable, Identifiable, Equatable, Sendable {
    let id: Int
    var payload: Payload
  }

  @Test func aPropertyThatCannotBeSampledSaysWhatToDo() async throws {
    #expect {
      _ = try SQLiteDatabase.inMemory(
        migrations: [
          SQLiteMigration("v1") { db in try EntityTable<Unsampled>("things").create(in: db) }
        ])
    } throws: { error in
      guard
        case .unsampledProperty(table: "things", .unsampled(property: "payload", _))? =
          error as? SQLiteDatabaseError
      else { return false }
      return "\(error)".contains("SchemaSample")
    }
  }
}
