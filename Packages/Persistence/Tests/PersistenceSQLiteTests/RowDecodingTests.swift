import EntityTracking
import Foundation
import GRDB
import Persistence
import PersistenceSQLite
import Testing

/// How a load reads rows back as entities: every row of a table in one pass, properties read by
/// column name whatever order or subset each row's decoding asks for.
struct RowDecodingTests {
  /// An in-memory database holding `table`, empty.
  private static func database<Entity>(with table: EntityTable<Entity>) throws -> SQLiteDatabase {
    try SQLiteDatabase.inMemory(
      migrations: [SQLiteMigration("v1") { db in try table.create(in: db) }])
  }

  struct Note: Codable, Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var due: Date?
    var owner: String?
    var done: Bool
  }

  @Test func rowsWithAndWithoutOptionalValuesLoadBackEqual() async throws {
    let table = EntityTable<Note>("notes")
    let database = try Self.database(with: table)
    // NB: each row skips other properties (a NULL is decoded without its value), so a row asks
    // for other columns in another order than the one before it.
    let notes = (1...40).map { id in
      Note(
        id: id, title: "note \(id)",
        due: id % 3 == 0 ? Date(timeIntervalSinceReferenceDate: Double(id)) : nil,
        owner: id % 2 == 0 ? "owner \(id)" : nil, done: id % 5 == 0)
    }
    try await database.persist(to: table)(notes, [])
    #expect(try await database.load(table).values == notes)
    try database.close()
  }

  /// A type whose decoding asks for its properties in an order that depends on the row.
  struct Shape: Codable, Identifiable, Equatable, Sendable {
    let id: Int
    var kind: String
    var width: Double
    var height: Double

    enum CodingKeys: String, CodingKey { case id, kind, width, height }

    init(id: Int, kind: String, width: Double, height: Double) {
      (self.id, self.kind, self.width, self.height) = (id, kind, width, height)
    }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      kind = try container.decode(String.self, forKey: .kind)
      if kind == "tall" {
        height = try container.decode(Double.self, forKey: .height)
        width = try container.decode(Double.self, forKey: .width)
      } else {
        width = try container.decode(Double.self, forKey: .width)
        height = try container.decode(Double.self, forKey: .height)
      }
      id = try container.decode(Int.self, forKey: .id)
    }
  }

  @Test func aDecodingThatAsksInAnotherOrderEachRowReadsEachPropertyFromItsColumn() async throws {
    let table = EntityTable<Shape>("shapes")
    let database = try Self.database(with: table)
    let shapes = (1...20).map { id in
      Shape(
        id: id, kind: id % 3 == 0 ? "tall" : "wide", width: Double(id), height: Double(100 + id))
    }
    try await database.persist(to: table)(shapes, [])
    #expect(try await database.load(table).values == shapes)
    try database.close()
  }

  @Test func aQueryOfTheTableReadsTheRowsItSelectsInItsOrder() async throws {
    let table = EntityTable<Note>("notes")
    let database = try Self.database(with: table)
    let notes = (1...30).map { id in
      Note(
        id: id, title: "note \(id)", due: nil, owner: id % 3 == 0 ? "ann" : nil,
        done: id % 2 == 0)
    }
    try await database.persist(to: table)(notes, [])
    let selected = try await database.writer.read { db in
      try table.fetchAll(
        db, sql: "SELECT * FROM notes WHERE owner = ? ORDER BY position DESC LIMIT ?",
        arguments: ["ann", 4])
    }
    #expect(selected.map(\.id) == [30, 27, 24, 21])
    #expect(selected.first == notes[29])
    try database.close()
  }

  @Test func aQueryOfARowThatDoesNotDecodeIsAnUndecodableRow() async throws {
    let table = EntityTable<Note>("notes")
    let database = try Self.database(with: table)
    try await database.persist(to: table)([Note(id: 1, title: "one", done: false)], [])
    try await database.writer.write { db in
      try db.execute(sql: "UPDATE notes SET title = NULL WHERE id = 1")
    }
    await #expect {
      _ = try await database.writer.read { db in
        try table.fetchAll(db, sql: "SELECT * FROM notes")
      }
    } throws: { error in
      guard case .undecodable(table: "notes", id: "1", _)? = error as? SQLiteDatabaseError
      else { return false }
      return true
    }
    try database.close()
  }

  @Test func aNullInARequiredColumnIsAnUndecodableRowNamingItsTableAndID() async throws {
    // NB: another tool's write: the column has no NOT NULL constraint.
    try await expectUndecodable(
      EntityTable<Note>("notes"),
      [Note(id: 1, title: "one", done: false), Note(id: 2, title: "two", done: true)],
      after: "UPDATE notes SET title = NULL WHERE id = 2", id: "2")
  }

  @Test func aTextInANumberColumnIsAnUndecodableRow() async throws {
    try await expectUndecodable(
      EntityTable<Shape>("shapes"), [Shape(id: 1, kind: "wide", width: 1, height: 2)],
      after: "UPDATE shapes SET width = 'wide' WHERE id = 1", id: "1")
  }

  /// Stores `entities` in `table`, runs another tool's `sql` on the file, and expects the load
  /// to be refused as an undecodable row of `table` with the id `id`.
  private func expectUndecodable<Entity>(
    _ table: EntityTable<Entity>, _ entities: [Entity], after sql: String, id: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    let database = try Self.database(with: table)
    try await database.persist(to: table)(entities, [])
    try await database.writer.write { db in try db.execute(sql: sql) }
    await #expect(sourceLocation: sourceLocation) {
      _ = try await database.load(table)
    } throws: { error in
      guard case .undecodable(table: table.name, id: id, _)? = error as? SQLiteDatabaseError
      else { return false }
      return true
    }
    try database.close()
  }

  /// An amount written as one integer when whole, as JSON when it has a unit: one column holds
  /// both forms.
  enum Amount: Codable, Equatable, Sendable, SchemaSample {
    case whole(Int)
    case measured(value: Double, unit: String)

    static var schemaSample: Amount { .whole(1) }

    enum CodingKeys: String, CodingKey { case value, unit }

    init(from decoder: any Decoder) throws {
      if let whole = try? decoder.singleValueContainer().decode(Int.self) {
        self = .whole(whole)
        return
      }
      let container = try decoder.container(keyedBy: CodingKeys.self)
      self = .measured(
        value: try container.decode(Double.self, forKey: .value),
        unit: try container.decode(String.self, forKey: .unit))
    }

    func encode(to encoder: any Encoder) throws {
      switch self {
      case .whole(let whole):
        var container = encoder.singleValueContainer()
        try container.encode(whole)
      case .measured(let value, let unit):
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
        try container.encode(unit, forKey: .unit)
      }
    }
  }

  struct Item: Codable, Identifiable, Equatable, Sendable {
    let id: Int
    var amount: Amount
    var tags: [String]
    var sizes: [Int: String]
  }

  @Test func jsonColumnsLoadBackEqualWhateverEachRowHolds() async throws {
    let table = EntityTable<Item>("items")
    let database = try Self.database(with: table)
    // NB: empty lists and filled ones, and an amount column holding integers and JSON, in rows
    // that alternate: a column read as JSON once is still read right when a row holds another
    // form.
    let items = (1...30).map { id in
      Item(
        id: id,
        amount: id % 3 == 0 ? .measured(value: Double(id) / 4, unit: "kg") : .whole(id),
        tags: id % 2 == 0 ? [] : ["t\(id)", "[x]"], sizes: id % 4 == 0 ? [:] : [id: "s"])
    }
    try await database.persist(to: table)(items, [])
    #expect(try await database.load(table).values == items)
    try database.close()
  }
}
