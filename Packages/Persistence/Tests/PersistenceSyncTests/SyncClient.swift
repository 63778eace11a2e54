import Foundation
import GRDB
import Persistence
import PersistenceSQLite
import PersistenceSync
import Synchronization

struct Note: Codable, Identifiable, Equatable, Sendable {
  let id: String
  var text: String
}

let noteTable = EntityTable<Note>("notes")
let migrations = [
  SQLiteMigration("v1") { db in try noteTable.create(in: db) },
  SyncReplica.migration,
]

/// One app on its own file: its writes go through its own `SQLiteDatabase` (as a
/// `PersistenceMiddleware`'s would), and its replica syncs the file with the remote over a link
/// that can be cut.
final class SyncClient: Sendable {
  let path: String
  let link: Link
  let replica: SyncReplica

  init(_ directory: URL, name: String, remote: any SyncRemote) throws {
    path = directory.appendingPathComponent("\(name).sqlite").path
    link = Link(remote)
    replica = try SyncReplica(
      path: path, migrations: migrations, tables: [SyncedTable(noteTable)], remote: link)
  }

  /// Writes a note as the app does, acknowledged once the transaction commits.
  func write(_ id: String, _ text: String?, retention: Duration = .seconds(3_600)) async throws {
    let database = try SQLiteDatabase(
      path: path, migrations: migrations, changeLogRetention: retention)
    defer { try? database.close() }
    _ = try await database.load(noteTable)
    if let text {
      try await database.persist(to: noteTable)([Note(id: id, text: text)], [])
    } else {
      try await database.persist(to: noteTable)([], [id])
    }
  }

  /// The notes in the file, text by id.
  func notes() async throws -> [String: String] {
    let database = try SQLiteDatabase(path: path, migrations: migrations)
    defer { try? database.close() }
    return Dictionary(
      uniqueKeysWithValues: try await database.load(noteTable)
        .map { ($0.id, $0.text) })
  }

  /// The rows of the file's change log.
  func logCount() async throws -> Int {
    let database = try SQLiteDatabase(path: path, migrations: migrations)
    defer { try? database.close() }
    return try await database.writer.read { db in
      try Int.fetchOne(db, sql: "SELECT count(*) FROM reduxkit_change_log") ?? 0
    }
  }
}

/// A client's connection to the shared remote: cut, it fails every call.
final class Link: SyncRemote {
  struct Down: Error {}

  private let remote: any SyncRemote
  private let isUp = Mutex(true)

  init(_ remote: any SyncRemote) {
    self.remote = remote
  }

  func set(up: Bool) { isUp.withLock { $0 = up } }

  func push(_ changes: [SyncChange], from replica: String) async throws -> [SyncOutcome] {
    guard isUp.withLock({ $0 }) else { throw Down() }
    return try await remote.push(changes, from: replica)
  }

  func pull(after cursor: String?, limit: Int) async throws -> SyncPage {
    guard isUp.withLock({ $0 }) else { throw Down() }
    return try await remote.pull(after: cursor, limit: limit)
  }
}

/// The notes of a remote's rows, text by id.
func texts(_ rows: [String: String]) throws -> [String: String] {
  try rows.mapValues { json in try JSONDecoder().decode(Note.self, from: Data(json.utf8)).text }
}

/// A fresh directory for one test's files, removed when released.
final class TemporaryDirectory {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("reduxkit-sync-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit {
    try? FileManager.default.removeItem(at: url)
  }
}
