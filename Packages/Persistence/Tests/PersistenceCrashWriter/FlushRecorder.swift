import EntityTracking
import Persistence
import PersistenceSQLite

/// Follows what each flush commits, for the crash-kill test: the writers' batches are applied
/// to a shadow of the database, reported (BEGIN) once every writer has staged its batch, and
/// kept (ACK) once the transaction committed, or dropped when it failed.
@MainActor
final class FlushRecorder {
  /// What the database holds after the last committed flush.
  private var committed: CrashState
  /// `committed` plus the batches staged by the flush in progress.
  private var staged: CrashState
  private var attempts = 0
  /// Committed flushes.
  private(set) var acknowledged = 0
  private var waiters: [(after: Int, continuation: CheckedContinuation<Void, Never>)] = []

  /// The round being run, reported with each flush.
  var round = CrashWriter.Round.explicit
  /// Makes the next attempt fail before anything is staged.
  var failsNextAttempt = false

  init(committed: CrashState) {
    self.committed = committed
    staged = committed
  }

  /// A writer that persists through `database` and records what it staged into the shadow.
  func writer<Entity>(
    keyPath: WritableKeyPath<CrashState, EntityStore<Entity>>,
    table: EntityTable<Entity>,
    backend: ReportingBackend,
    apply: @escaping @Sendable (inout CrashState, [Entity], [Entity.ID]) -> Void
  ) -> StateWriter<CrashState> {
    StateWriter(keyPath: keyPath, backend: backend) { changes in
      ReportingBackend.Batch(sqlite: SQLiteBatch(changes, into: table)) {
        apply(&$0, changes.writes, changes.deletions)
      }
    }
  }

  private func failIfAsked() throws {
    if failsNextAttempt {
      failsNextAttempt = false
      throw CrashWriter.InjectedFailure()
    }
  }

  fileprivate func stage(_ batches: [ReportingBackend.Batch]) throws {
    try failIfAsked()
    for batch in batches { batch.shadow(&staged) }
  }

  fileprivate func begin() {
    attempts += 1
    CrashWriter.report("BEGIN \(attempts) \(staged.digest) \(round.rawValue)")
  }

  fileprivate func failed() {
    attempts += 1
    staged = committed
    CrashWriter.report("FAIL \(attempts)")
  }

  fileprivate func acknowledge() {
    committed = staged
    acknowledged += 1
    CrashWriter.report("ACK \(attempts)")
    let ready = waiters.filter { $0.after < acknowledged }
    waiters.removeAll { $0.after < acknowledged }
    for waiter in ready { waiter.continuation.resume() }
  }

  /// Returns once more than `count` flushes were acknowledged.
  func acknowledgement(after count: Int) async {
    guard acknowledged <= count else { return }
    await withCheckedContinuation { waiters.append((count, $0)) }
  }
}

/// The database, reported: each flush's batches are staged into the shadow and BEGIN is
/// reported, then ACK once the transaction committed, or FAIL.
final class ReportingBackend: PersistenceBackend {
  /// A writer's batch for the database, and what it does to the shadow.
  struct Batch: Sendable {
    let sqlite: SQLiteBatch
    let shadow: @Sendable (inout CrashState) -> Void
  }

  let database: SQLiteDatabase
  let recorder: FlushRecorder

  init(database: SQLiteDatabase, recorder: FlushRecorder) {
    self.database = database
    self.recorder = recorder
  }

  func commit(_ batches: [Batch]) async throws {
    do {
      try await recorder.stage(batches)
      await recorder.begin()
      try await database.commit(batches.map(\.sqlite))
    } catch {
      await recorder.failed()
      throw error
    }
    await recorder.acknowledge()
  }
}
