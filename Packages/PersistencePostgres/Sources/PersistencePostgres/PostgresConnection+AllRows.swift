import Logging
import PostgresNIO

extension PostgresConnection {
  /// The rows of `query`, all read on the connection's event loop before any is returned: for
  /// reads whose rows are all kept anyway (a load, the change feed's records).
  ///
  /// NB: not the `PostgresRowSequence` of the `async` `query(_:logger:)`, whose rows cross from
  /// the event loop to the reading task under back-pressure: 30,000 one-column rows took 380 to
  /// 660 ms that way on a 2-core machine (about 16 µs a row, most of it context switches), and
  /// 15 ms this way; 300,000 rows 4.6 s and 0.27 s.
  func allRows(_ query: PostgresQuery, logger: Logger) async throws -> PostgresQueryResult {
    let rows: EventLoopFuture<PostgresQueryResult> = self.query(query, logger: logger)
    return try await rows.get()
  }
}
