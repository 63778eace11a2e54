import Foundation
import Persistence
import PersistenceSQLite
import PersistenceSync
import Synchronization

/// What offline-first sync costs, in wall clock, release build (`Scripts/bench.sh` does not run
/// it; run it alone on a quiet machine):
///
///     SyncContenders [rounds]
///
/// - **The outbox on a local flush**: flushes of 500 rows into a file a replica syncs (its
///   bookkeeping made, its pin on the change log) and into a file without one, interleaved
///   round by round; the ratio of the medians. The outbox is the change log every flush writes
///   already, so the ratio shows what the pin costs a flush (the log's pruning reads it).
/// - **Reconnect to converged**: 1,000 changes made offline, one flush each, on one client;
///   then the time from the link's return until that client has pushed them and a second
///   client has pulled them (both files equal the remote), over an in-process remote.
///
///     SyncContenders flush-plain|flush-synced <flushes>   one side alone, for callgrind
@main
enum SyncContenders {
  struct Note: Codable, Identifiable, Equatable, Sendable {
    let id: Int64
    var title: String
    var done: Bool
    var updated: Double
  }

  static let notes = EntityTable<Note>("notes")
  static let plain = [SQLiteMigration("v1") { db in try notes.create(in: db) }]
  static let synced = plain + [SyncReplica.migration]

  static func main() {
    Task { @MainActor in
      do {
        try await run(CommandLine.arguments)
      } catch {
        fatalError("\(error)")
      }
      exit(0)
    }
    // NB: a run loop rather than an async main: valgrind 3.19 crashes in the `sigsuspend` of
    // libdispatch's `dispatch_main`, which an async main parks the main thread in.
    RunLoop.main.run()
  }

  @MainActor
  static func run(_ arguments: [String]) async throws {
    if arguments.count == 3, let flushes = Int(arguments[2]) {
      let directory = try Directory()
      _ = try await flush(
        flushes, migrations: arguments[1] == "flush-synced" ? synced : plain,
        in: directory)
      return
    }
    let rounds = arguments.count > 1 ? Int(arguments[1]) ?? 7 : 7
    var plainTimes: [Double] = []
    var syncedTimes: [Double] = []
    for _ in 0..<rounds {
      let directory = try Directory()
      plainTimes.append(try await flush(20, migrations: plain, in: directory))
      syncedTimes.append(try await flush(20, migrations: synced, in: directory))
    }
    let (p, s) = (median(plainTimes), median(syncedTimes))
    print(
      String(
        format: "outbox: 20 flushes of 500 rows: without %.1f ms, with %.1f ms: %.2f× (goal ≤ 1.5)",
        p * 1e3, s * 1e3, s / p))

    var converged: [Double] = []
    for _ in 0..<rounds { converged.append(try await reconnect(1_000)) }
    print(
      String(
        format:
          "reconnect → converged, 1,000 changes queued offline: median %.0f ms (min %.0f, max %.0f)",
        median(converged) * 1e3, (converged.min() ?? 0) * 1e3, (converged.max() ?? 0) * 1e3))
  }

  /// Seconds taken by `flushes` flushes of 500 new rows, in a file of its own.
  static func flush(_ flushes: Int, migrations: [SQLiteMigration], in directory: Directory)
    async throws -> Double
  {
    let path = directory.file()
    let database = try SQLiteDatabase(path: path, migrations: migrations)
    defer { try? database.close() }
    _ = try await database.load(notes)
    let write = database.persist(to: notes)
    let start = ContinuousClock.now
    for flush in 0..<flushes {
      let rows = (0..<500).map { offset in
        Note(id: Int64(flush * 500 + offset), title: "note \(offset)", done: false, updated: 0)
      }
      try await write(rows, [])
    }
    return (ContinuousClock.now - start).seconds
  }

  /// Seconds from a link's return to two clients equal to the remote, `changes` queued offline.
  static func reconnect(_ changes: Int) async throws -> Double {
    let directory = try Directory()
    let remote = InMemorySyncRemote()
    let link = Link(remote)
    let (a, b) = (directory.file(), directory.file())
    let replicaA = try SyncReplica(
      path: a, migrations: synced, tables: [SyncedTable(notes)], remote: link)
    let replicaB = try SyncReplica(
      path: b, migrations: synced, tables: [SyncedTable(notes)], remote: remote)
    let database = try SQLiteDatabase(path: a, migrations: synced)
    _ = try await database.load(notes)
    let write = database.persist(to: notes)
    link.isUp = false
    for id in 0..<changes {
      try await write(
        [Note(id: Int64(id), title: "offline \(id)", done: id % 2 == 0, updated: 0)], [])
    }
    try database.close()
    do {
      try await replicaA.sync()
      fatalError("the link is down")
    } catch {}
    link.isUp = true
    let start = ContinuousClock.now
    try await replicaA.sync()
    try await replicaB.sync()
    let elapsed = (ContinuousClock.now - start).seconds
    let check = try SQLiteDatabase(path: b, migrations: synced)
    let count = try await check.load(notes).count
    try check.close()
    precondition(count == changes, "client B holds \(count) notes, not \(changes)")
    let pending = try await replicaA.pendingChanges()
    precondition(pending == 0, "client A has \(pending) changes to send")
    try await replicaA.close()
    try await replicaB.close()
    return elapsed
  }

  static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
  }
}

/// A link that can be cut.
final class Link: SyncRemote {
  private let up = Mutex(true)
  let remote: InMemorySyncRemote

  init(_ remote: InMemorySyncRemote) { self.remote = remote }

  var isUp: Bool {
    get { up.withLock { $0 } }
    set { up.withLock { $0 = newValue } }
  }

  struct Down: Error {}

  func push(_ changes: [SyncChange], from replica: String) async throws -> [SyncOutcome] {
    guard isUp else { throw Down() }
    return try await remote.push(changes, from: replica)
  }

  func pull(after cursor: String?, limit: Int) async throws -> SyncPage {
    guard isUp else { throw Down() }
    return try await remote.pull(after: cursor, limit: limit)
  }
}

/// A temporary directory of database files, removed at the end.
final class Directory {
  let url: URL
  private var made = 0

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "sync-contenders-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  func file() -> String {
    made += 1
    return url.appendingPathComponent("\(made).sqlite").path
  }

  deinit { try? FileManager.default.removeItem(at: url) }
}

extension Duration {
  var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
