import Synchronization

/// What a ``PostgresBackend`` did since it opened, for an operator's dashboard or health check.
public struct PostgresMetrics: Sendable, Equatable {
  /// Flushes committed.
  public internal(set) var flushes = 0
  /// Flushes that failed (conflicts included); the middleware retries them.
  public internal(set) var failedFlushes = 0
  /// Conflicting rows reported by failed flushes (a row failing again is counted again).
  public internal(set) var conflicts = 0
  /// How long the last committed flush took, from its first statement to its commit.
  public internal(set) var lastFlushLatency: Duration?
  /// The longest committed flush.
  public internal(set) var maxFlushLatency: Duration = .zero
  /// Other instances' changes the change feed delivered.
  public internal(set) var remoteChanges = 0
  /// How long the oldest change of the feed's last delivery waited in the log before this
  /// instance read it: how far behind the other instances it is.
  public internal(set) var feedLag: Duration?
  /// Times the feed's listening connection was lost and opened again.
  public internal(set) var feedReconnects = 0
  /// How long, at the feed's last read, the oldest transaction that can still write the change
  /// log had been running: changes committed after it wait that long. Zero when none runs; a
  /// large value names a flush left open (see `pg_stat_activity`).
  public internal(set) var feedHeldBack: Duration = .zero
}

/// Collects ``PostgresMetrics`` from the flushes and the feed, which run on other tasks.
final class MetricsRecorder: Sendable {
  private let metrics = Mutex(PostgresMetrics())

  var snapshot: PostgresMetrics { metrics.withLock { $0 } }

  func flushCommitted(latency: Duration) {
    metrics.withLock { metrics in
      metrics.flushes += 1
      metrics.lastFlushLatency = latency
      metrics.maxFlushLatency = max(metrics.maxFlushLatency, latency)
    }
  }

  func flushFailed(_ error: PostgresBackendError) {
    metrics.withLock { metrics in
      metrics.failedFlushes += 1
      if case .conflicts(let conflicts) = error { metrics.conflicts += conflicts.count }
    }
  }

  func feedRead(delivered: Int, lag: Duration) {
    metrics.withLock { metrics in
      metrics.remoteChanges += delivered
      metrics.feedLag = lag
    }
  }

  func feedReconnected() {
    metrics.withLock { $0.feedReconnects += 1 }
  }

  func feedHeldBack(_ duration: Duration) {
    metrics.withLock { $0.feedHeldBack = duration }
  }
}
