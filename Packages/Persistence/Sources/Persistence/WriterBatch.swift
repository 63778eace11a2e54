/// One writer's share of a flush: the work that persists it, and how to put it back if that
/// work fails.
struct WriterBatch: Sendable {
  /// The number of entity writes and deletions in the batch.
  let count: Int
  /// Persists the batch.
  let persist: @Sendable () async throws -> Void
  /// Puts the batch back into its writer, underneath changes drained since it was taken.
  let restore: @MainActor @Sendable () -> Void
}
