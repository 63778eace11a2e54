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
///     LOADED <digest>       the state loaded at start
///     BEGIN <k> <digest>    flush k starts; <digest> is the state it commits
///     ACK <k>               flush k returned
///
/// Usage: `persistence-crash-writer <database> <seed>` runs until killed;
/// `persistence-crash-writer <database> --load` prints LOADED and exits.
@main
enum CrashWriter {
  static let tags = EntityTable<Tag>("tags")
  static let notes = EntityTable<Note>("notes")

  @MainActor
  static func main() async {
    let arguments = CommandLine.arguments
    guard arguments.count == 3 else {
      fail("usage: persistence-crash-writer <database> (<seed> | --load)")
    }
    do {
      var migrator = DatabaseMigrator()
      migrator.registerMigration("v1") { db in
        try tags.create(in: db)
        try notes.create(in: db)
      }
      let database = try SQLiteDatabase(path: arguments[1], migrator: migrator)
      var state = CrashState()
      state.tags = try await database.load(tags)
      state.notes = try await database.load(notes)
      report("LOADED \(state.digest)")
      if arguments[2] == "--load" { return }
      guard let seed = UInt64(arguments[2]) else { fail("seed must be a number: \(arguments[2])") }
      try await run(from: state, seed: seed, database: database)
    } catch {
      fail("error: \(error)")
    }
  }

  @MainActor
  private static func run(from loaded: CrashState, seed: UInt64, database: SQLiteDatabase)
    async throws
  {
    var state = loaded
    // Only the explicit flushes below commit: the timers never fire during a run.
    let persistence = PersistenceMiddleware<CrashState>(
      database: database,
      writers: [
        StateWriter(keyPath: \.tags, table: tags, database: database),
        StateWriter(keyPath: \.notes, table: notes, database: database),
      ],
      debounce: .seconds(3_600), maxWait: .seconds(3_600))
    var random = SplitMix64(seed: seed)
    for flush in 1... {
      state.step(&random)
      persistence.afterReduce(state: &state)
      report("BEGIN \(flush) \(state.digest)")
      try await persistence.flush()
      report("ACK \(flush)")
    }
  }

  /// Writes a line with one `write(2)`: nothing waits in a buffer when the process is killed.
  private static func report(_ line: String, to descriptor: Int32 = STDOUT_FILENO) {
    let bytes = Array((line + "\n").utf8)
    var written = 0
    while written < bytes.count {
      let result = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
      guard result > 0 else { return }
      written += result
    }
  }

  private static func fail(_ message: String) -> Never {
    report(message, to: STDERR_FILENO)
    exit(2)
  }
}
