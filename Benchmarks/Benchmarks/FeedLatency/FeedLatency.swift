import EntityTracking
import Foundation
import GRDB
import Persistence
import PersistenceSQLite
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// How long a change committed by one process takes to reach another process's store through
/// the SQLite change feed: from the moment the writer's flush returns (the commit) to the
/// moment the reader's feed delivers it (what the app dispatches), across two real processes
/// on one file, both times read from the system-wide monotonic clock.
///
///     FeedLatency <changes> [poll-ms …]     for each poll interval (default 200): p50, p99, max
///
/// The writer (this program, started again as `FeedLatency writer <file> <changes>`) commits
/// one change at a time, 5 to 45 ms apart at random, so that the commits fall anywhere in the
/// reader's poll interval.
@main
enum FeedLatency {
  static let notes = EntityTable<Note>("notes")

  static func main() async throws {
    let arguments = CommandLine.arguments
    if arguments.count == 4, arguments[1] == "writer", let changes = Int(arguments[3]) {
      try await write(changes, to: arguments[2])
      return
    }
    guard arguments.count >= 2, let changes = Int(arguments[1]), changes > 0 else {
      fatalError("usage: FeedLatency <changes> [poll-ms …]")
    }
    let polls = arguments.dropFirst(2).compactMap(Int.init)
    print("commit → delivery between two processes, \(changes) changes each:")
    for poll in polls.isEmpty ? [200] : polls {
      let latencies = try await measure(changes, poll: .milliseconds(poll)).sorted()
      func at(_ quantile: Double) -> String {
        let index = min(latencies.count - 1, Int(Double(latencies.count) * quantile))
        return String(format: "%.1f ms", latencies[index])
      }
      print(
        "  poll \(poll) ms: p50 \(at(0.5)), p99 \(at(0.99)), max \(String(format: "%.1f ms", latencies.last ?? 0))"
      )
    }
  }

  /// The latencies, in milliseconds, of `changes` changes read with a feed polling every `poll`.
  static func measure(_ changes: Int, poll: Duration) async throws -> [Double] {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("feed-latency-\(UUID().uuidString).sqlite").path
    defer {
      for suffix in ["", "-wal", "-shm"] {
        try? FileManager.default.removeItem(atPath: path + suffix)
      }
    }
    let migrations = [SQLiteMigration("v1") { db in try notes.create(in: db) }]
    let database = try SQLiteDatabase(path: path, migrations: migrations, instance: "reader")
    let cursor = try await database.feedCursor()
    _ = try await database.load(notes)
    let arrivals = Arrivals()
    let feed = database.changeFeed(from: cursor, pollInterval: poll)
    feed.subscribe(notes) { changes in
      let now = monotonicNanoseconds()
      for change in changes.changes { arrivals.record(change.id, at: now) }
    }
    let following = Task { await feed.run() }

    let writer = Process()
    writer.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    writer.arguments = ["writer", path, "\(changes)"]
    let output = Pipe()
    writer.standardOutput = output
    try writer.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    writer.waitUntilExit()
    var commits: [String: UInt64] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      let fields = line.split(separator: " ")
      if fields.count == 3, fields[0] == "C", let time = UInt64(fields[2]) {
        commits[String(fields[1])] = time
      }
    }
    precondition(commits.count == changes, "the writer committed \(commits.count) of \(changes)")
    while arrivals.count < changes { try await Task.sleep(for: .milliseconds(10)) }
    following.cancel()
    try database.close()
    return commits.map { id, committed in
      Double(Int64(arrivals.time(of: id)!) - Int64(committed)) / 1e6
    }
  }

  /// The writer process: one change per flush, each reported once committed.
  @MainActor
  static func write(_ changes: Int, to path: String) async throws {
    let migrations = [SQLiteMigration("v1") { db in try notes.create(in: db) }]
    let database = try SQLiteDatabase(path: path, migrations: migrations, instance: "writer")
    let persist = database.persist(to: notes)
    var random = SystemRandomNumberGenerator()
    for index in 0..<changes {
      try await Task.sleep(for: .milliseconds(Int.random(in: 5...45, using: &random)))
      try await persist([Note(id: "n\(index)", title: "change \(index)")], [])
      let committed = monotonicNanoseconds()
      FileHandle.standardOutput.write(Data("C n\(index) \(committed)\n".utf8))
    }
    try database.close()
  }
}

struct Note: Codable, Identifiable, Equatable, Sendable {
  let id: String
  var title: String
}

/// When each change reached the reader.
final class Arrivals: Sendable {
  private let times = Mutex<[String: UInt64]>([:])

  func record(_ id: String, at time: UInt64) {
    times.withLock { times in
      if times[id] == nil { times[id] = time }
    }
  }

  var count: Int { times.withLock { $0.count } }
  func time(of id: String) -> UInt64? { times.withLock { $0[id] } }
}

/// The system-wide monotonic clock, comparable between processes of one machine.
func monotonicNanoseconds() -> UInt64 {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}
