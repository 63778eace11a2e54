public import Logging
public import Persistence

extension PersistenceMiddleware {
  /// A middleware whose every flush is one transaction of `database`: after a crash the
  /// database holds all of a flush, across all writers, or none of it.
  ///
  /// The same as ``/Persistence/PersistenceMiddleware/init(backend:writers:debounce:maxWait:retry:loopThreshold:clock:logger:)``
  /// with `database` as the backend.
  ///
  /// - Parameters:
  ///   - database: The database every flush commits to, in one transaction.
  ///   - writers: One per `EntityStore`, flushed in this order (leaf entities first); make them
  ///     with `StateWriter(keyPath:table:database:)` on the same database.
  ///   - debounce: The quiet time after the last drain before a flush (default 250 ms).
  ///   - maxWait: The longest a drained change waits for a flush (default 1 s).
  ///   - retry: The backoff between retries of a failed flush.
  ///   - loopThreshold: Drains in one flush window beyond which a warning is logged, once.
  ///   - clock: The clock the debounce, `maxWait` and retries read.
  ///   - logger: Receives failures (error), retries and the loop warning (warning).
  public convenience init(
    database: SQLiteDatabase,
    writers: [StateWriter<State>],
    debounce: Duration = .milliseconds(250),
    maxWait: Duration = .seconds(1),
    retry: RetryPolicy = .default,
    loopThreshold: Int = 100,
    clock: any Clock<Duration> = ContinuousClock(),
    logger: Logger = Logger(label: "ReduxKit.Persistence")
  ) {
    self.init(
      backend: database, writers: writers, debounce: debounce, maxWait: maxWait, retry: retry,
      loopThreshold: loopThreshold, clock: clock, logger: logger)
  }
}
