import GRDB
import Persistence
import PersistenceSQLite

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Applies scripted changes to a SQLite database through `PersistenceMiddleware`, and reports
/// each flush on standard output, unbuffered, for the crash-kill test:
///
///     LOADED <digest> <integrity>   the state loaded at start, and `PRAGMA integrity_check`
///     BEGIN <k> <digest> <round>    flush k is about to commit <digest> (all writers staged)
///     ACK <k>                       flush k committed
///     FAIL <k>                      an attempt failed (injected), nothing committed
///
/// Flushes come in rounds that rotate through what triggers them: an explicit `flush()`, the
/// debounce after a pause, `maxWait` under a steady stream of changes, and the retry after a
/// failed attempt. The digests are of what each flush's transaction commits (a shadow of the
/// database, fed by the writers' batches), not of the state in memory.
///
/// Usage: `PersistenceCrashWriter <database> <seed>` runs until killed;
/// `PersistenceCrashWriter <database> --load` prints LOADED and exits;
/// `PersistenceCrashWriter <database> --writer <name> <flushes>` makes `<flushes>` explicit
/// flushes of notes named `<name>-…`, prints `DONE <name> <notes>` and exits 0, or prints
/// `FAIL <k> <error>` at the first flush that fails and exits 1 (the two-process test).
@main
enum CrashWriter {
  static let tags = EntityTable<Tag>("tags")
  static let notes = EntityTable<Note>("notes")

  @MainActor
  static func main() async {
    let arguments = CommandLine.arguments
    guard arguments.count >= 3 else {
      fail("usage: PersistenceCrashWriter <database> (<seed> | --load | --writer <name> <n>)")
    }
    do {
      var migrator = DatabaseMigrator()
      migrator.registerMigration("v1") { db in
        try tags.create(in: db)
        try notes.create(in: db)
      }
      if arguments[2] == "--shared", arguments.count == 6, let seed = UInt64(arguments[4]),
        let steps = Int(arguments[5])
      {
        try await SharedWriter.run(
          instance: arguments[3], seed: seed, steps: steps, path: arguments[1], migrator: migrator)
        return
      }
      // NB: the app's own open path: it recovers a database left by a kill, checks it
      // (quick_check) and refuses it if it is damaged.
      let database = try SQLiteDatabase(path: arguments[1], migrator: migrator)
      var state = CrashState()
      state.tags = try await database.load(tags)
      state.notes = try await database.load(notes)
      if arguments[2] == "--writer", arguments.count == 5, let flushes = Int(arguments[4]) {
        try await writeFlushes(flushes, named: arguments[3], from: state, database: database)
        return
      }
      let integrity = try await database.writer.read { db in
        try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: ";")
      }
      report("LOADED \(state.digest) \(integrity)")
      if arguments[2] == "--load" { return }
      guard let seed = UInt64(arguments[2]) else { fail("seed must be a number: \(arguments[2])") }
      try await run(from: state, seed: seed, database: database)
    } catch {
      fail("error: \(error)")
    }
  }

  /// Why an injected failure failed.
  struct InjectedFailure: Error {}

  /// What triggers the flush of a round.
  enum Round: String, CaseIterable {
    case explicit, debounce, maxWait, retry
  }

  @MainActor
  private static func run(from loaded: CrashState, seed: UInt64, database: SQLiteDatabase)
    async throws
  {
    var state = loaded
    let recorder = FlushRecorder(committed: loaded)
    let backend = ReportingBackend(database: database, recorder: recorder)
    let persistence = PersistenceMiddleware<CrashState>(
      backend: backend,
      writers: [
        recorder.writer(keyPath: \.tags, table: tags, backend: backend) {
          $0.apply(tags: $1, deletions: $2)
        },
        recorder.writer(keyPath: \.notes, table: notes, backend: backend) {
          $0.apply(notes: $1, deletions: $2)
        },
      ],
      debounce: .milliseconds(20), maxWait: .milliseconds(60),
      retry: RetryPolicy(initialDelay: .milliseconds(5), maximumDelay: .milliseconds(5)))
    var random = SplitMix64(seed: seed)
    let rounds = Round.allCases
    for number in Int(seed % 4)... {
      let round = rounds[number % rounds.count]
      recorder.round = round
      let acknowledged = recorder.acknowledged
      switch round {
      case .explicit:
        state.step(&random)
        state.touch()
        persistence.afterReduce(state: &state)
        try await persistence.flush()
      case .debounce:
        state.step(&random)
        state.touch()
        persistence.afterReduce(state: &state)
        await recorder.acknowledgement(after: acknowledged)
      case .maxWait:
        // Small changes every 2 ms, well within the debounce: maxWait ends the wait.
        while recorder.acknowledged == acknowledged {
          state.smallStep(&random)
          state.touch()
          persistence.afterReduce(state: &state)
          try await Task.sleep(for: .milliseconds(2))
        }
      case .retry:
        recorder.failsNextAttempt = true
        state.step(&random)
        state.touch()
        persistence.afterReduce(state: &state)
        do {
          try await persistence.flush()
        } catch {
          // NB: the injected failure (this flush's, or that of a timer's flush still running
          // from the round before): the retry timer commits what it left pending.
        }
        await recorder.acknowledgement(after: acknowledged)
      }
    }
  }

  /// The two-process test's writer: explicit flushes of its own notes, every one of which must
  /// succeed the first time.
  @MainActor
  private static func writeFlushes(
    _ flushes: Int, named name: String, from loaded: CrashState, database: SQLiteDatabase
  ) async throws {
    var state = loaded
    let persistence = PersistenceMiddleware<CrashState>(
      database: database,
      writers: [StateWriter(keyPath: \.notes, table: notes, database: database)],
      debounce: .seconds(3_600), maxWait: .seconds(3_600))
    var random = SplitMix64(seed: UInt64(truncatingIfNeeded: name.hashValue))
    for flush in 1...flushes {
      state.writerStep(named: name, &random)
      persistence.afterReduce(state: &state)
      do {
        try await persistence.flush()
      } catch {
        report("FAIL \(flush) \(error)")
        exit(1)
      }
    }
    try await persistence.shutdown()
    try database.close()
    report("DONE \(name) \(state.noteCount(named: name))")
  }

  /// Writes a line with one `write(2)`: nothing waits in a buffer when the process is killed.
  static func report(_ line: String, to descriptor: Int32 = STDOUT_FILENO) {
    let bytes = Array((line + "\n").utf8)
    var written = 0
    while written < bytes.count {
      let result = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
      guard result > 0 else { return }
      written += result
    }
  }

  static func fail(_ message: String) -> Never {
    report(message, to: STDERR_FILENO)
    exit(2)
  }
}
