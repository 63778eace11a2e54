/// One writer's share of a flush: the work that persists it, and how to put it back if that
/// work fails.
struct WriterBatch: Sendable {
  /// The number of entity writes and deletions in the batch.
  let count: Int
  /// Persists the batch on its own (one transaction of its own, for a writer with a backend).
  let persist: @Sendable () async throws -> Void
  /// The batch for the writer's backend, which a middleware on the same backend commits with
  /// the other writers' batches; `nil` for a writer with its own `persist` function.
  let staged: BackendBatch?
  /// Puts the batch back into its writer, underneath changes drained since it was taken.
  let restore: @MainActor @Sendable () -> Void
  /// Puts the batch back like ``restore``, but for the writes the database refused for good,
  /// which the writer sets aside until the app decides.
  let setAside: @MainActor @Sendable ([RejectedWrite]) -> Void
}
