import ReduxCore

/// Makes concurrent requests for one key share one execution: the first request opens a
/// debounce window (default 100 ms) and runs `perform` when it closes; every request for the
/// key until that execution ends waits for it instead of running its own.
///
/// Unlike swift-query's, a batch ends when its execution ends (not when the first waiter
/// returns), so a request arriving later starts a new batch rather than joining a cleared one.
public actor QueryBatchExecutor {
  /// The executor apps share by default.
  public static let shared = QueryBatchExecutor()

  private struct Batch {
    let id: Int
    let execution: Task<Void, Never>
  }

  private var batches: [QueryKey: Batch] = [:]
  private var nextID = 0
  private let clock: ClockReader

  /// Creates an executor whose debounce windows read `clock`.
  public init(clock: some Clock<Duration> = ContinuousClock()) {
    self.clock = ClockReader(clock)
  }

  /// Runs `perform` once for every request for `queryKey` made within `debounce` of the first
  /// (and until that run ends), and returns when it has run.
  public func batchExecution(
    queryKey: QueryKey,
    debounce: Duration = .milliseconds(100),
    perform: @escaping @Sendable () async -> Void
  ) async {
    if let batch = batches[queryKey] {
      await batch.execution.value
      return
    }
    nextID += 1
    let id = nextID
    let sleep = clock.sleep(for: debounce)
    let execution = Task {
      do {
        try await sleep()
      } catch {
        // Nothing cancels this task; were the sleep to end early anyway, the batch runs at
        // once, since its callers are waiting for it.
      }
      await Self.run(perform)
    }
    batches[queryKey] = Batch(id: id, execution: execution)
    await execution.value
    if batches[queryKey]?.id == id { batches[queryKey] = nil }
  }

  /// The number of batches open or running.
  public var batchCount: Int { batches.count }

  @concurrent
  private static func run(_ perform: @Sendable () async -> Void) async {
    await perform()
  }
}
