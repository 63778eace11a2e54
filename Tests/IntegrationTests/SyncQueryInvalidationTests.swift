import Foundation
import ReduxCoreTesting
import ReduxKit
import Testing

/// A remote change follows the path a local one does: `SyncReplica` writes it into the app's
/// file, the app's `SQLiteChangeFeed` delivers it as `RemoteChanges`, and `EntityQueries`
/// invalidates exactly the queries that read what it touched.
@Suite("PersistenceSync → change feed → EntityQueries")
struct SyncQueryInvalidationTests {
  struct Todo: Codable, Identifiable, Equatable, Sendable {
    let id: String
    var list: Int
    var title: String
  }

  static let todos = EntityTable<Todo>("todos")
  static let migrations = [
    SQLiteMigration("v1") { db in try todos.create(in: db) }, SyncReplica.migration,
  ]

  @Test("a pulled change invalidates the queries that read it, and only those")
  func pulledChangesInvalidateQueries() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("sync-queries-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let remote = InMemorySyncRemote()
    let (mine, theirs) = (
      directory.appendingPathComponent("mine.sqlite").path,
      directory.appendingPathComponent("theirs.sqlite").path
    )

    // The app: two to-dos in list 1, one in list 2, and a cached count per list.
    let database = try SQLiteDatabase(path: mine, migrations: Self.migrations)
    defer { try? database.close() }
    let replica = try SyncReplica(
      path: mine, migrations: Self.migrations, tables: [SyncedTable(Self.todos)], remote: remote)
    _ = try await database.load(Self.todos)
    try await database.persist(to: Self.todos)(
      [
        Todo(id: "a", list: 1, title: "a"), Todo(id: "b", list: 1, title: "b"),
        Todo(id: "c", list: 2, title: "c"),
      ], [])
    try await replica.sync()
    var state = try await database.load(Self.todos)
    let client = QueryClient(clock: ManualClock())
    let options = QueryOptions(staleTime: .seconds(3_600))
    let queries = EntityQueryInvalidator(
      client: client, tracking: state,
      dependencies: [.queries(keyedBy: { [QueryKey("count", $0.list)] }).reading(\.list)])
    for list in [1, 2] {
      let count = state.count { $0.list == list }
      _ = await client.fetchResult(queryKey: QueryKey("count", list), options: options) { count }
    }

    // Another client moves "a" to list 2.
    let other = try SyncReplica(
      path: theirs, migrations: Self.migrations, tables: [SyncedTable(Self.todos)],
      remote: remote)
    try await other.sync()
    let theirDatabase = try SQLiteDatabase(path: theirs, migrations: Self.migrations)
    _ = try await theirDatabase.load(Self.todos)
    try await theirDatabase.persist(to: Self.todos)([Todo(id: "a", list: 2, title: "a")], [])
    try theirDatabase.close()
    try await other.sync()

    // Here: the pull writes it into the file; the feed delivers it.
    let cursor = try await database.feedCursor()
    #expect(try await replica.sync().pulled == 1)
    let (deliveries, delivered) = AsyncStream.makeStream(of: RemoteChanges<Todo>.self)
    let feed = database.changeFeed(from: cursor, pollInterval: .seconds(1), clock: ManualClock())
    feed.subscribe(Self.todos) { delivered.yield($0) }
    let following = Task { await feed.run() }
    defer { following.cancel() }
    var arrivals = deliveries.makeAsyncIterator()
    let changes = try #require(await arrivals.next())
    #expect(changes.changes.map(\.id) == ["a"])
    #expect(changes.changes.first?.origin == SyncReplica.origin)

    state.apply(changes)
    #expect(state["a"]?.list == 2)
    let update = await queries.apply(changes.changeSet, in: state)
    #expect(Set(update.invalidatedKeys) == [QueryKey("count", 1), QueryKey("count", 2)])
    #expect(try await replica.pendingChanges() == 0)
  }
}
