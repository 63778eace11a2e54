import EntityTracking
import Foundation
import GRDB
import Persistence
import PersistenceSQLite
import Synchronization

/// One of several processes writing one file at once, for the two-process test
/// (`PersistenceCrashWriter <database> --shared <instance> <seed> <steps>`): it adds notes of its
/// own (ids from the file), edits and deletes five notes every process edits (`hot-0` …
/// `hot-4`; an edit of one deleted makes it again), follows
/// the others through the change feed, and settles every conflict (for its own value or for
/// theirs, at random). It reports, one `write(2)` each:
///
///     ACK <instance> <id>=<title> …     a flush committed these values (`-`: a deletion)
///     CONFLICT <instance> <id> mine|theirs   a flush met another process's change to <id>
///     DONE <instance>                     its steps are done and saved
///     STATE <digest> <id>=<title> …       once `<database>.stop` exists (every writer is
///                                         done) and its feed has caught up with the log,
///                                         with the shared notes' titles (`-`: none)
///
/// A `SIGKILL` may end it anywhere; the test restarts it under another instance name.
@MainActor
enum SharedWriter {
  static func run(
    instance: String, seed: UInt64, steps: Int, path: String, migrator: DatabaseMigrator
  ) async throws {
    let database = try SQLiteDatabase(path: path, migrator: migrator, instance: instance)
    let cursor = try await database.feedCursor()
    var state = CrashState()
    state.notes = try await database.load(CrashWriter.notes)
    let persistence = PersistenceMiddleware<CrashState>(
      database: database,
      writers: [StateWriter(keyPath: \.notes, table: CrashWriter.notes, database: database)],
      debounce: .seconds(3_600), maxWait: .seconds(3_600))
    let feed = database.changeFeed(from: cursor, pollInterval: .milliseconds(5))
    let inbox = Inbox()
    feed.subscribe(CrashWriter.notes) { changes in inbox.put(changes) }
    let following = Task { await feed.run() }

    func applyRemote() {
      for changes in inbox.take() {
        state.notes.apply(changes)
        persistence.afterReduce(state: &state)
      }
    }

    var random = SplitMix64(seed: seed)
    var unflushed: [String: String] = [:]
    for step in 0..<steps {
      applyRemote()
      let title = "\(instance):\(step)"
      if random.next(below: 3) == 0 {
        let id = "n\(try await database.newID(for: CrashWriter.notes))"
        state.notes.upsert(Note(id: id, title: title, body: "", tagID: 0, revision: 0))
        unflushed[id] = title
      } else if random.next(below: 8) == 0 {
        // A deletion, which another process may be editing at the same moment.
        let id = "hot-\(random.next(below: 5))"
        guard state.notes[id] != nil else { continue }
        state.notes.remove(id)
        unflushed[id] = "-"
      } else {
        let id = "hot-\(random.next(below: 5))"
        if state.notes[id] == nil {
          state.notes.upsert(Note(id: id, title: title, body: "", tagID: 0, revision: 0))
        } else {
          state.notes.modify(id) { $0.title = title }
        }
        unflushed[id] = title
      }
      persistence.afterReduce(state: &state)
      guard random.next(below: 3) == 0 || step == steps - 1 else { continue }
      while true {
        do {
          try await persistence.flush()
          let values = unflushed.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
          CrashWriter.report("ACK \(instance) " + values.joined(separator: " "))
          unflushed = [:]
          break
        } catch {
          let conflicts = error.conflicts
          guard !conflicts.isEmpty else { throw error }
          let keepsMine = random.next(below: 2) == 0
          for conflict in conflicts {
            CrashWriter.report(
              "CONFLICT \(instance) \(conflict.id) \(keepsMine ? "mine" : "theirs")")
          }
          if keepsMine {
            for conflict in conflicts { database.resolve(conflict, keeping: .mine) }
          } else {
            let theirs = try database.keepTheirs(conflicts, in: CrashWriter.notes)
            state.notes.apply(theirs)
            persistence.afterReduce(state: &state)
            for conflict in conflicts { unflushed[conflict.id] = nil }
          }
        }
      }
    }
    try await persistence.shutdown()
    CrashWriter.report("DONE \(instance)")
    // NB: the state is the file's once every writer is done and the feed has read the whole
    // log, and the state holds what it brought.
    while !FileManager.default.fileExists(atPath: path + ".stop") {
      applyRemote()
      try await Task.sleep(for: .milliseconds(5))
    }
    let last = try await database.feedCursor()
    while feed.cursor < last || !inbox.isEmpty {
      applyRemote()
      try await Task.sleep(for: .milliseconds(5))
    }
    applyRemote()
    following.cancel()
    try database.close()
    let hot = (0..<5).map { "hot-\($0)=\(state.notes["hot-\($0)"]?.title ?? "-")" }
    CrashWriter.report("STATE \(state.digest) " + hot.joined(separator: " "))
  }
}

/// What the feed delivered, waiting for the writer's loop (the state is the loop's).
final class Inbox: Sendable {
  private let deliveries = Mutex<[RemoteChanges<Note>]>([])

  func put(_ changes: RemoteChanges<Note>) {
    deliveries.withLock { $0.append(changes) }
  }

  func take() -> [RemoteChanges<Note>] {
    deliveries.withLock { deliveries in
      defer { deliveries.removeAll() }
      return deliveries
    }
  }

  var isEmpty: Bool { deliveries.withLock { $0.isEmpty } }
}
