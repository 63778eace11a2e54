import EntityTracking
import Persistence

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

  /// A writer that persists through `persist` and records what it staged into the shadow.
  func writer<Entity>(
    keyPath: WritableKeyPath<CrashState, EntityStore<Entity>>,
    persist: @escaping @Sendable (EntityChanges<Entity>) async throws -> Void,
    apply: @escaping @Sendable (inout CrashState, [Entity], [Entity.ID]) -> Void
  ) -> StateWriter<CrashState> {
    StateWriter(keyPath: keyPath) { [weak self] (changes: EntityChanges<Entity>) in
      try await self?.failIfAsked()
      try await persist(changes)
      await self?.stage { apply(&$0, changes.writes, changes.deletions) }
    }
  }

  private func failIfAsked() throws {
    if failsNextAttempt {
      failsNextAttempt = false
      throw CrashWriter.InjectedFailure()
    }
  }

  private func stage(_ change: (inout CrashState) -> Void) {
    change(&staged)
  }

  /// Wraps `inner` (the database's transaction) with the BEGIN, ACK and FAIL reports.
  nonisolated func transaction(_ inner: FlushTransaction) -> FlushTransaction {
    FlushTransaction(ReportingTransaction(inner: inner, recorder: self).run)
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

/// The database's transaction, reported: BEGIN once every writer staged its batch, then ACK
/// once committed, or FAIL.
private struct ReportingTransaction: Sendable {
  let inner: FlushTransaction
  let recorder: FlushRecorder

  func run(_ body: () async throws -> Void) async throws {
    do {
      try await inner.run {
        try await body()
        await recorder.begin()
      }
    } catch {
      await recorder.failed()
      throw error
    }
    await recorder.acknowledge()
  }
}
