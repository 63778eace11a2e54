import Foundation
import GRDB
import Observation
import ReduxKit
import Testing

/// ReduxCore, EntityTracking, Persistence and PersistenceSQLite together: a store whose
/// reducers never save, persisted to a SQLite file and hydrated back into a new store.
@MainActor
@Suite struct StoreSQLitePersistenceTests {
  struct Todo: Codable, Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var done = false
  }

  @MainActor
  @Observable
  final class TasksState: ReduxState {
    var todos: EntityStore<Todo>
    init(todos: EntityStore<Todo> = []) { self.todos = todos }
    var readOnly: ReadOnly { ReadOnly(self) }

    @MainActor
    @Observable
    final class ReadOnly: ReduxReadOnlyState {
      private let state: TasksState
      init(_ state: TasksState) { self.state = state }
      var todos: EntityStore<Todo> { state.todos }
    }
  }

  enum TasksAction: ReduxAction {
    case add(Int, String)
    case complete(Int)
    case remove(Int)

    var id: String {
      switch self {
      case .add: "add"
      case .complete: "complete"
      case .remove: "remove"
      }
    }
  }

  nonisolated static let table = EntityTable<Todo>("tasks")

  nonisolated static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in try table.create(in: db) }
    return migrator
  }

  static let reducer = AnyReducer<TasksState, TasksAction>(id: "tasks") { context in
    let (state, action) = context.args
    switch action {
    case .add(let id, let title): state.todos.upsert(Todo(id: id, title: title))
    case .complete(let id): state.todos.modify(id) { $0.done = true }
    case .remove(let id): state.todos.remove(id)
    }
  }

  @Test func aStorePersistsToSQLiteAndANewStoreHydratesFromIt() async throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("reduxkit-integration-\(UUID().uuidString).sqlite").path
    defer {
      for suffix in ["", "-wal", "-shm"] {
        try? FileManager.default.removeItem(atPath: path + suffix)
      }
    }

    do {
      let database = try SQLiteDatabase(path: path, migrator: Self.migrator)
      let persistence = PersistenceMiddleware<TasksState>(
        database: database,
        writers: [StateWriter(keyPath: \.todos, table: Self.table, database: database)])
      let store = Store(
        initialState: TasksState(), reducers: [Self.reducer, persistence.reducer()])
      await store.dispatchWithResult(.add(1, "write the note"))
      await store.dispatchWithResult(.add(2, "ship"))
      await store.dispatchWithResult(.add(3, "forget"))
      await store.dispatchWithResult(.complete(1))
      await store.dispatchWithResult(.remove(3))
      try await persistence.shutdown()
      store.shutdown()
    }

    let database = try SQLiteDatabase(path: path, migrator: Self.migrator)
    let todos = try await database.load(Self.table)
    let store = Store(initialState: TasksState(todos: todos), reducers: [Self.reducer])
    #expect(
      store.todos.values == [
        Todo(id: 1, title: "write the note", done: true), Todo(id: 2, title: "ship"),
      ])
    #expect(!store.todos.hasChanges)
    store.shutdown()
  }
}
