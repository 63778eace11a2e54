import EntityTracking
import Persistence
import ReduxCoreTesting
import Synchronization

/// A backend that records each commit (the writers' batches it received together) and can
/// fail the next ones: the stand-in for a database with transactions.
final class CommitRecorder: PersistenceBackend {
  /// A writer's batch, described.
  struct Batch: Equatable, Sendable {
    var writer: String
    var writes: [String]
    var deletions: [String]
  }

  private struct State {
    var commits: [[Batch]] = []
    var failuresLeft = 0
  }

  private let state = Mutex(State())

  /// Every commit attempt, failed ones included, in order.
  var commits: [[Batch]] { state.withLock { $0.commits } }

  /// Makes the next `count` commits throw ``DiskError`` (after recording them).
  func failNext(_ count: Int) {
    state.withLock { $0.failuresLeft = count }
  }

  func commit(_ batches: [Batch]) async throws {
    let fails = state.withLock { state in
      state.commits.append(batches)
      guard state.failuresLeft > 0 else { return false }
      state.failuresLeft -= 1
      return true
    }
    if fails { throw DiskError() }
  }

  /// A writer of `keyPath` bound to this backend, its batches described by `describe`.
  @MainActor
  func writer<Entity: Identifiable & Sendable>(
    _ name: String, _ keyPath: WritableKeyPath<AppState, EntityStore<Entity>>,
    describing describe: @escaping @Sendable (Entity) -> String
  ) -> StateWriter<AppState> where Entity.ID: CustomStringConvertible {
    StateWriter(keyPath: keyPath, backend: self) { changes in
      Batch(
        writer: name, writes: changes.writes.map(describe),
        deletions: changes.deletions.map(\.description))
    }
  }

  /// A middleware on this backend with the two writers of ``AppState`` (tags first).
  @MainActor
  func middleware() -> PersistenceMiddleware<AppState> {
    PersistenceMiddleware(
      backend: self,
      writers: [
        writer("tags", \.tags) { $0.id },
        writer("items", \.items) { "\($0.id)=\($0.name)" },
      ], clock: ManualClock())
  }
}
