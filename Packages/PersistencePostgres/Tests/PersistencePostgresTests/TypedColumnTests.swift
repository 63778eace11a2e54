import EntityTracking
import Foundation
import Persistence
import PersistencePostgres
import PersistencePostgresTesting
import PostgresNIO
import Testing

/// Entities in typed columns on PostgreSQL: what a flush stores is a column of its type that
/// any client queries, a table of the JSON layout converts whole, and a model change is refused
/// at the load until its migration step runs.
@Suite(
  .enabled(if: TestServer.isAvailable, Comment(rawValue: TestServer.skipReason)), .serialized,
  .timeLimit(.minutes(2)))
struct TypedColumnTests {
  /// Writes `entities` to `table` in one flush.
  private func save<Entity>(
    _ entities: [Entity], to table: PostgresTable<Entity>, in database: PostgresBackend
  ) async throws {
    try await database.commit([table.batch(EntityChanges(writes: entities, deletions: []))])
  }

  enum Status: String, Codable, CaseIterable, Sendable { case open, done }

  struct Note: Codable, Equatable, Sendable {
    var text: String
    var at: Date
  }

  struct Task: Codable, Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var done: Bool
    var estimate: Double
    var due: Date?
    var owner: UUID
    var status: Status
    var tags: [String]
    var notes: [Note]
  }

  static let tasks = PostgresTable<Task>("tasks")

  static let sample = [
    Task(
      id: 1, title: "ünïcödé 'quoted'", done: true, estimate: 0.1,
      due: Date(timeIntervalSinceReferenceDate: 817_457_988.122_266_8), owner: UUID(),
      status: .done, tags: ["a", "b"],
      notes: [Note(text: "first", at: Date(timeIntervalSinceReferenceDate: 1.5))]),
    Task(
      id: 2, title: "second", done: false, estimate: 3, due: nil, owner: UUID(), status: .open,
      tags: [], notes: []),
  ]

  @Test func everyPropertyIsAColumnOfItsTypeAndLoadsBackEqual() async throws {
    let url = try await TestServer.makeDatabase()
    let database = try await PostgresBackend(
      url: url, instance: "a",
      migrations: [PostgresMigration("v1") { c in try await Self.tasks.create(on: c) }])
    try await save(Self.sample, to: Self.tasks, in: database)
    #expect(try await database.load(Self.tasks).values == Self.sample)

    let (types, row) = try await TestServer.admin(url) { connection in
      var types: [String] = []
      for try await (column, type) in try await connection.query(
        """
        SELECT column_name, data_type FROM information_schema.columns
        WHERE table_name = 'tasks' ORDER BY ordinal_position
        """, logger: TestServer.quiet
      ).decode((String, String).self) { types.append("\(column) \(type)") }
      var row: (String, Bool, Double, String, String, String)?
      for try await value in try await connection.query(
        """
        SELECT title, done, estimate, status, tags->>1, notes->0->>'text' FROM tasks WHERE id = '1'
        """, logger: TestServer.quiet
      ).decode((String, Bool, Double, String, String, String).self) { row = value }
      return (types, row)
    }
    #expect(
      types == [
        "id text", "title text", "done boolean", "estimate double precision",
        "due double precision", "owner uuid", "status text", "tags jsonb", "notes jsonb",
        "version bigint", "position double precision", "updated_by text",
        "updated_at timestamp with time zone",
      ])
    #expect(row?.0 == "ünïcödé 'quoted'" && row?.1 == true && row?.2 == 0.1)
    #expect(row?.3 == "done" && row?.4 == "b" && row?.5 == "first")
    database.close()
  }

  /// A value that encodes as the one string it wraps.
  struct Handle: Codable, Equatable, Sendable {
    let text: String
    init(_ text: String) { self.text = text }
    init(from decoder: any Decoder) throws {
      text = try decoder.singleValueContainer().decode(String.self)
    }
    func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      try container.encode(text)
    }
  }

  enum Size: Int, Codable, CaseIterable, Sendable {
    case small = 1
    case large = 3
  }

  struct Record: Codable, Identifiable, Equatable, Sendable {
    let id: String
    var small: Int8
    var unsigned: UInt32
    var ratio: Float
    var size: Size
    var handle: Handle
    var link: URL
    var payload: Data
    var note: Note?
    var count: Int?
  }

  static let records = PostgresTable<Record>("records")

  @Test func valuesOfEveryShapeAndNullsAmongThemAreStoredAndUpdated() async throws {
    let url = try await TestServer.makeDatabase()
    let database = try await PostgresBackend(
      url: url, instance: "a",
      migrations: [PostgresMigration("v1") { c in try await Self.records.create(on: c) }])
    var saved = [
      Record(
        id: "a", small: -8, unsigned: 4_000_000_000, ratio: 0.5, size: .large,
        handle: Handle("@a"), link: URL(string: "https://example.com/a?b=c")!,
        payload: Data([0, 1, 254, 255]), note: Note(text: "n", at: Date(timeIntervalSince1970: 2)),
        count: nil),
      Record(
        id: "b", small: 7, unsigned: 0, ratio: -1, size: .small, handle: Handle(""),
        link: URL(string: "file:///tmp/b")!, payload: Data(), note: nil, count: 42),
    ]
    try await save(saved, to: Self.records, in: database)
    #expect(try await database.load(Self.records).values == saved)

    // Updated: each NULL becomes a value and each value a NULL, in one batch.
    (saved[0].note, saved[1].note) = (saved[1].note, saved[0].note)
    (saved[0].count, saved[1].count) = (saved[1].count, saved[0].count)
    saved[1].handle = Handle("@b")
    try await save(saved, to: Self.records, in: database)
    #expect(try await database.load(Self.records).values == saved)

    let columns = try await TestServer.admin(url) { connection in
      var values: [String] = []
      for try await (size, handle, count, isNull) in try await connection.query(
        """
        SELECT size, handle, count, note IS NULL FROM records ORDER BY id
        """, logger: TestServer.quiet
      ).decode((Int64, String, Int64?, Bool).self) {
        values.append("\(size) \(handle) \(count.map(String.init) ?? "NULL") \(isNull)")
      }
      return values
    }
    #expect(columns == ["3 @a 42 true", "1 @b NULL false"])
    database.close()
  }

  @Test func aRowThatNoLongerDecodesIsATypedErrorNamingItsColumn() async throws {
    let url = try await TestServer.makeDatabase()
    let database = try await PostgresBackend(
      url: url, instance: "a",
      migrations: [PostgresMigration("v1") { c in try await Self.tasks.create(on: c) }])
    try await save(Self.sample, to: Self.tasks, in: database)
    for (column, value) in [("title", "NULL"), ("tags", "'{\"not\": \"a list\"}'::jsonb")] {
      try await TestServer.admin(url) { connection in
        try await connection.query(
          PostgresQuery(unsafeSQL: "UPDATE tasks SET \(column) = \(value) WHERE id = '2'"),
          logger: TestServer.quiet)
      }
      await #expect {
        _ = try await database.load(Self.tasks)
      } throws: { error in
        guard case .undecodable(table: "tasks", id: "2", _) = error as? PostgresBackendError
        else { return false }
        return "\(error)".contains(column)
      }
      try await TestServer.admin(url) { connection in
        try await connection.query(
          "UPDATE tasks SET title = 'second', tags = '[]' WHERE id = '2'",
          logger: TestServer.quiet)
      }
    }
    #expect(try await database.load(Self.tasks).values == Self.sample)
    database.close()
  }

  @Test func aTableOfTheJSONLayoutConvertsWithItsVersionsAndOrder() async throws {
    let url = try await TestServer.makeDatabase()
    // The layout of the release before typed columns, as its `create` made it.
    let v1 = PostgresMigration("v1") { connection in
      try await connection.query(
        """
        CREATE SEQUENCE "tasks_position";
        """, logger: TestServer.quiet)
      try await connection.query(
        """
        CREATE TABLE "tasks" (
          id text PRIMARY KEY, data jsonb NOT NULL, version bigint NOT NULL,
          position bigint NOT NULL DEFAULT nextval('"tasks_position"'),
          updated_by text NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())
        """, logger: TestServer.quiet)
    }
    do {
      let old = try await PostgresBackend(url: url, instance: "old", migrations: [v1])
      old.close()
    }
    let encoder = JSONEncoder()
    try await TestServer.admin(url) { connection in
      // Saved in the reverse of their ids, at versions 4 and 9.
      for (task, version) in zip(Self.sample.reversed(), [Int64(4), 9]) {
        let json = String(decoding: try encoder.encode(task), as: UTF8.self)
        try await connection.query(
          """
          INSERT INTO tasks (id, data, version, updated_by)
          VALUES (\(String(task.id)), \(json)::jsonb, \(version), 'old')
          """, logger: TestServer.quiet)
      }
    }
    do {
      let versioned = try await PostgresBackend(url: url, instance: "a", migrations: [v1])
      await #expect {
        _ = try await versioned.load(Self.tasks)
      } throws: { error in
        guard case .jsonTable(table: "tasks") = error as? PostgresBackendError else { return false }
        return "\(error)".contains("convertToColumns")
      }
      versioned.close()
    }
    let database = try await PostgresBackend(
      url: url, instance: "a",
      migrations: [
        v1, PostgresMigration("v2-columns") { c in try await Self.tasks.convertToColumns(on: c) },
      ])
    #expect(try await database.load(Self.tasks).values == Self.sample.reversed())
    #expect(try await TestServer.rowVersions(url, table: "tasks") == ["2": 4, "1": 9])
    // A write at the version loaded succeeds: the versions were kept.
    var changed = Self.sample[0]
    changed.title = "changed"
    try await save([changed], to: Self.tasks, in: database)
    #expect(try await database.load(Self.tasks)[1]?.title == "changed")
    database.close()
  }

  struct Card: Codable, Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var score: Double = 0
  }

  struct CardWithLabel: Codable, Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var score: Double
    var label: String?
  }

  @Test func anAddedPropertyIsRefusedUntilItsColumnIsAdded() async throws {
    let url = try await TestServer.makeDatabase()
    let v1 = PostgresMigration("v1") { c in try await PostgresTable<Card>("cards").create(on: c) }
    do {
      let first = try await PostgresBackend(url: url, instance: "a", migrations: [v1])
      try await save([Card(id: 1, title: "kept", score: 2)], to: PostgresTable("cards"), in: first)
      first.close()
    }
    let labelled = PostgresTable<CardWithLabel>("cards")
    do {
      let database = try await PostgresBackend(url: url, instance: "a", migrations: [v1])
      await #expect {
        _ = try await database.load(labelled)
      } throws: { error in
        guard
          case .missingColumn(table: "cards", column: "label", declaration: #""label" text"#)? =
            error as? PostgresBackendError
        else { return false }
        return "\(error)".contains("addColumns(on: c)")
      }
      database.close()
    }
    let database = try await PostgresBackend(
      url: url, instance: "a",
      migrations: [v1, PostgresMigration("v2") { c in try await labelled.addColumns(on: c) }])
    #expect(
      try await database.load(labelled).values
        == [CardWithLabel(id: 1, title: "kept", score: 2, label: nil)])
    database.close()
  }
}
