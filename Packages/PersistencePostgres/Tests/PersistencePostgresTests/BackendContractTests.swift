import EntityTracking
import Foundation
import Persistence
import PersistencePostgres
import PersistencePostgresTesting
import PersistenceSQLite
import ReduxCoreTesting
import Testing

/// The contract both backends keep, one suite run on each: what an app saves through the
/// middleware loads back equal and in order in another app; a stale write is a conflict that
/// carries the row found; a property added is refused at the load until its one-line step
/// runs; a row the database cannot hold is set aside while the rest commits.
@MainActor
@Suite(
  .enabled(if: TestServer.isAvailable, Comment(rawValue: TestServer.skipReason)), .serialized,
  .timeLimit(.minutes(2)))
struct BackendContractTests {
  enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }
  }

  enum Kind: String, Codable, CaseIterable, Sendable { case bug, feature }

  struct Checklist: Codable, Equatable, Sendable {
    var items: [String]
    var checkedAt: Date?
  }

  /// An entity with a property of every kind a column holds.
  struct Task: Codable, Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var done: Bool = false
    var score: Double = 0
    var due: Date?
    var owner = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
    var kind = Kind.bug
    var tags: [String] = []
    var checklist = Checklist(items: [])
    var attachment = Data()
  }

  /// The same entity, a release later: one optional property more.
  struct LabelledTask: Codable, Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var done: Bool
    var score: Double
    var due: Date?
    var owner: UUID
    var kind: Kind
    var tags: [String]
    var checklist: Checklist
    var attachment: Data
    var label: String?
  }

  /// A database of one backend that no other test uses: a file (removed with the place), or a
  /// database on the server.
  final class Place {
    let backend: Backend
    let address: String

    init(backend: Backend, address: String) {
      self.backend = backend
      self.address = address
    }

    deinit {
      if backend == .sqlite { try? FileManager.default.removeItem(atPath: address) }
    }

    static func fresh(_ backend: Backend) async throws -> Place {
      switch backend {
      case .sqlite:
        let path = FileManager.default.temporaryDirectory
          .appendingPathComponent("reduxkit-contract-\(UUID().uuidString).sqlite").path
        return Place(backend: backend, address: path)
      case .postgres:
        return Place(backend: backend, address: try await TestServer.makeDatabase())
      }
    }
  }

  /// The schema steps a test opens its database with, on either backend.
  enum Step { case create, addColumns }

  /// One app on either backend: its state (loaded at the open), its middleware, and what the
  /// backend does for it.
  @MainActor
  final class App<Entity: Codable & Identifiable & Equatable & Sendable> where Entity.ID == Int {
    struct State { var entities = EntityStore<Entity>() }
    var state = State()
    let persistence: PersistenceMiddleware<State>
    let load: () async throws -> EntityStore<Entity>
    let resolve: (PersistenceConflict, ConflictResolution) -> Void
    let closeDatabase: () throws -> Void

    init(
      _ place: Place, instance: String, table name: String = "tasks", steps: [Step] = [.create]
    ) async throws {
      switch place.backend {
      case .sqlite:
        let table = EntityTable<Entity>(name)
        let database = try SQLiteDatabase(
          path: place.address,
          migrations: steps.enumerated().map { index, step in
            SQLiteMigration("v\(index + 1)") { db in
              switch step {
              case .create: try table.create(in: db)
              case .addColumns: try table.addColumns(in: db)
              }
            }
          }, instance: instance)
        persistence = PersistenceMiddleware(
          database: database,
          writers: [StateWriter(keyPath: \.entities, table: table, database: database)])
        load = { try await database.load(table) }
        resolve = { database.resolve($0, keeping: $1) }
        closeDatabase = { try database.close() }
      case .postgres:
        let table = PostgresTable<Entity>(name)
        let database = try await PostgresBackend(
          url: place.address, instance: instance,
          migrations: steps.enumerated().map { index, step in
            PostgresMigration("v\(index + 1)") { connection in
              switch step {
              case .create: try await table.create(on: connection)
              case .addColumns: try await table.addColumns(on: connection)
              }
            }
          })
        persistence = PersistenceMiddleware(
          backend: database,
          writers: [StateWriter(keyPath: \.entities, table: table, database: database)])
        load = { try await database.load(table) }
        resolve = { database.resolve($0, keeping: $1) }
        closeDatabase = { database.close() }
      }
      state.entities = try await load()
    }

    /// A reduce: changes the entities, then the middleware drains them.
    func edit(_ change: (inout EntityStore<Entity>) -> Void) {
      change(&state.entities)
      persistence.afterReduce(state: &state)
    }

    func close() async throws {
      try await persistence.shutdown()
      try closeDatabase()
    }
  }

  static let sample = [
    Task(
      id: 1, title: "ünïcödé, 'quoted' \"double\"", done: true, score: 0.1,
      due: Date(timeIntervalSinceReferenceDate: 817_457_988.122_266_8), kind: .feature,
      tags: ["a", "b"],
      checklist: Checklist(items: ["x"], checkedAt: Date(timeIntervalSinceReferenceDate: 1.5)),
      attachment: Data([0, 1, 255])),
    Task(id: 2, title: "second", score: -1e300),
    Task(id: 3, title: "third", due: Date(timeIntervalSinceReferenceDate: -1)),
  ]

  @Test(arguments: Backend.allCases)
  func whatOneAppSavesAnotherLoadsEqualAndInOrder(_ backend: Backend) async throws {
    let place = try await Place.fresh(backend)
    let a = try await App<Task>(place, instance: "a")
    a.edit {
      $0.upsert(contentsOf: Self.sample + [Task(id: 4, title: "d"), Task(id: 5, title: "e")])
    }
    try await a.persistence.flush()
    a.edit { tasks in
      tasks.modify(3) { $0.title = "changed in place" }
      tasks.remove(2)
      tasks.upsert(Task(id: 2, title: "deleted and made again"))
    }
    try await a.persistence.flush()
    #expect(a.state.entities.ids == [1, 3, 4, 5, 2])

    let b = try await App<Task>(place, instance: "b")
    #expect(b.state.entities.ids == a.state.entities.ids)
    #expect(b.state.entities.values == a.state.entities.values)
    try await a.close()
    try await b.close()
  }

  @Test(arguments: Backend.allCases)
  func aStaleWriteIsAConflictCarryingTheRowFound(_ backend: Backend) async throws {
    let place = try await Place.fresh(backend)
    let a = try await App<Task>(place, instance: "a")
    a.edit { $0.upsert(Task(id: 1, title: "original")) }
    try await a.persistence.flush()
    let b = try await App<Task>(place, instance: "b")

    a.edit { $0.modify(1) { $0.title = "A's" } }
    try await a.persistence.flush()
    b.edit { $0.modify(1) { $0.title = "B's" } }
    var conflicts: [PersistenceConflict] = []
    do {
      try await b.persistence.flush()
      Issue.record("the stale write was not refused")
    } catch {
      conflicts = error.conflicts
    }
    #expect(conflicts.map(\.id) == ["1"])
    let json = try #require(conflicts.first?.currentJSON)
    #expect(try JSONDecoder().decode(Task.self, from: Data(json.utf8)).title == "A's")
    #expect(try await a.load()[1]?.title == "A's")

    b.resolve(try #require(conflicts.first), .mine)
    try await b.persistence.flush()
    #expect(try await a.load()[1]?.title == "B's")
    try await a.close()
    try await b.close()
  }

  @Test(arguments: Backend.allCases)
  func anAddedPropertyIsRefusedUntilItsStepRuns(_ backend: Backend) async throws {
    let place = try await Place.fresh(backend)
    let first = try await App<Task>(place, instance: "a")
    first.edit { $0.upsert(contentsOf: Self.sample) }
    try await first.persistence.flush()
    try await first.close()

    do {
      _ = try await App<LabelledTask>(place, instance: "b")
      Issue.record("the load was not refused")
    } catch {
      #expect("\(error)".contains("label") && "\(error)".contains("addColumns"), "\(error)")
    }
    let next = try await App<LabelledTask>(place, instance: "b", steps: [.create, .addColumns])
    #expect(next.state.entities.values.map(\.title) == Self.sample.map(\.title))
    #expect(next.state.entities.values.allSatisfy { $0.label == nil })
    next.edit { $0.modify(1) { $0.label = "urgent" } }
    try await next.persistence.flush()
    let reopened = try await App<LabelledTask>(place, instance: "c", steps: [.create, .addColumns])
    #expect(reopened.state.entities[1]?.label == "urgent")
    try await next.close()
    try await reopened.close()
  }

  @Test(arguments: Backend.allCases)
  func aRowTheDatabaseCannotHoldIsSetAsideAndTheRestCommits(_ backend: Backend) async throws {
    let place = try await Place.fresh(backend)
    let a = try await App<Task>(place, instance: "a")
    a.edit { tasks in
      tasks.upsert(Task(id: 1, title: "fine"))
      tasks.upsert(Task(id: 2, title: "not a number", score: .nan))
    }
    await #expect(throws: (any Error).self) { try await a.persistence.flush() }
    #expect(a.persistence.status.rejected.map(\.id) == ["2"])
    #expect(try await a.load().ids == [1])
    try await a.close()
  }

  // MARK: - Order is data

  @Test(arguments: Backend.allCases)
  func aMoveAndItsUndoEachWriteOneRowAndAnotherAppLoadsTheOrder(_ backend: Backend) async throws {
    let place = try await Place.fresh(backend)
    let a = try await App<Task>(place, instance: "a")
    a.edit { tasks in tasks.upsert(contentsOf: (1...500).map { Task(id: $0, title: "\($0)") }) }
    try await a.persistence.flush()
    let before = a.state.entities

    // A move to the end (deleted and inserted again), as the board moves a card.
    a.edit { tasks in
      let task = tasks.remove(50)!
      tasks.upsert(task)
    }
    #expect(a.persistence.status.pendingCount == 1)
    try await a.persistence.flush()
    // Its undo: 50 back between 49 and 51, the 450 tasks after it untouched.
    a.edit { $0.restore(from: before) }
    #expect(a.persistence.status.pendingCount == 1)
    try await a.persistence.flush()
    // An insertion in the middle and a move to the front.
    var middle = Array(before)
    middle.insert(Task(id: 501, title: "middle"), at: 250)
    middle.insert(middle.remove(at: 400), at: 0)
    a.edit { $0.restore(from: EntityStore(middle)) }
    #expect(a.persistence.status.pendingCount == 2)
    try await a.persistence.flush()

    let b = try await App<Task>(place, instance: "b")
    #expect(b.state.entities.ids == middle.map(\.id))
    try await a.close()
    try await b.close()
  }

  @Test(arguments: Backend.allCases)
  func randomEditsUndoesAndRenumberingKeepTheStoreAndTheTableInTheSameOrder(
    _ backend: Backend
  ) async throws {
    // NB: a reference array edited alongside; every flush is checked against it, and another
    // app loads the table now and then. A seeded generator: the same edits every run.
    var random = SeededRandom(seed: 0x5EED)
    let place = try await Place.fresh(backend)
    let a = try await App<Task>(place, instance: "a")
    var model: [Task] = []
    var snapshots: [[Task]] = []
    var nextID = 1
    func task(_ title: String) -> Task {
      defer { nextID += 1 }
      return Task(id: nextID, title: title)
    }
    for step in 0..<400 {
      let choice = model.isEmpty ? 0 : random.next(below: 9)
      switch choice {
      case 0, 1:
        let new = task("t\(step)")
        a.edit { $0.upsert(new) }
        model.append(new)
      case 2:
        let id = model[random.next(below: model.count)].id
        a.edit { $0.remove(id) }
        model.removeAll { $0.id == id }
      case 3:
        let offset = random.next(below: model.count)
        model[offset].title += "'"
        let changed = model[offset]
        a.edit { $0.upsert(changed) }
      case 4:
        let moved = model.remove(at: random.next(below: model.count))
        a.edit { tasks in
          tasks.remove(moved.id)
          tasks.upsert(moved)
        }
        model.append(moved)
      case 5:
        let moved = model.remove(at: random.next(below: model.count))
        model.insert(moved, at: random.next(below: model.count + 1))
        let target = model
        a.edit { $0.restore(from: EntityStore(target)) }
      case 6:
        model.insert(task("m\(step)"), at: random.next(below: model.count + 1))
        let target = model
        a.edit { $0.restore(from: EntityStore(target)) }
      case 7:
        guard let snapshot = snapshots.randomElement(using: &random) else { continue }
        model = snapshot
        a.edit { $0.restore(from: EntityStore(snapshot)) }
      default:
        model.sort { ($0.title, $0.id) < ($1.title, $1.id) }
        a.edit { $0.sort { ($0.title, $0.id) < ($1.title, $1.id) } }
      }
      if step % 7 == 0 { snapshots.append(model) }
      if step % 5 == 4 {
        try await a.persistence.flush()
        #expect(a.state.entities.values == model, "step \(step)")
      }
      if step % 100 == 99 {
        let b = try await App<Task>(place, instance: "b\(step)")
        #expect(b.state.entities.values == model, "another app at step \(step)")
        try await b.close()
      }
    }
    // NB: 150 insertions at one spot (after the first task) exhaust the room between two
    // positions, whatever the random points taken: the table is numbered again, all at once.
    var wroteAll = false
    for step in 0..<150 {
      model.insert(task("hot\(step)"), at: 1)
      let target = model
      a.edit { $0.restore(from: EntityStore(target)) }
      wroteAll = wroteAll || a.persistence.status.pendingCount == model.count
      try await a.persistence.flush()
    }
    #expect(wroteAll, "no renumbering after 150 insertions at one spot")
    #expect(a.state.entities.values == model)
    let b = try await App<Task>(place, instance: "last")
    #expect(b.state.entities.values == model)
    try await a.close()
    try await b.close()
  }
}
