public import Logging
public import Persistence

extension PersistenceMiddleware {
  /// A middleware whose every flush is one transaction of `database`: after a crash the
  /// database holds all of a flush, across all writers, or none of it.
  ///
  /// The parameters other than `database` are those of
  /// ``PersistenceMiddleware/init(writers:debounce:maxWait:retry:loopThreshold:clock:transaction:logger:)``.
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
      writers: writers, debounce: debounce, maxWait: maxWait, retry: retry,
      loopThreshold: loopThreshold, clock: clock, transaction: database.flushTransaction,
      logger: logger)
  }
}
