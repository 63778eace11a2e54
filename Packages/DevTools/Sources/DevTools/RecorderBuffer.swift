import ReduxCore
import Synchronization

/// What a recorder and its encoding task share, and the recording path itself.
///
/// NB: not generic, like the entries: the path runs without looking up generic metadata.
@usableFromInline
final class RecorderBuffer: Sendable {
  static let batchSize = 64
  /// How often an entry is encoded to measure the size, when nothing encodes them all.
  ///
  /// NB: an encoding of one record costs about 240,000 instructions (Foundation's JSON coders,
  /// twice): one in 1,024 added 140 to each recorded action.
  static let sampleEvery = 4_096

  let book = Mutex(RecorderBook())
  let listeners = Mutex<[Int: @Sendable ([DevToolsRecord]) -> Void]>([:])
  let nextListener = Mutex(0)
  /// Held for a whole encoding pass: the task's and a `flush()` never take the same entries,
  /// or the file would get their lines twice.
  let encodingPass = Mutex(())
  let capacity: Int
  let maxBytes: Int
  let clock: ClockReader
  /// When the recording started, on ``clock``: entries are timed from it once encoded.
  let started = Mutex<Duration?>(nil)
  /// Wakes the encoding task.
  let encoding: AsyncStream<Void>.Continuation
  /// The app's summary of an action, if it gives one.
  let summarize: (@Sendable (any ReduxAction & Encodable) -> String?)?

  init<State, Action, Snapshot>(
    limits: DevToolsRecorder<State, Action, Snapshot>.Limits, clock: ClockReader,
    encoding: AsyncStream<Void>.Continuation,
    summarize: (@Sendable (any ReduxAction & Encodable) -> String?)?
  ) {
    capacity = limits.capacity
    maxBytes = limits.maxBytes
    self.clock = clock
    self.encoding = encoding
    self.summarize = summarize
  }

  /// The clock's reading at `instant` of the continuous clock (when a store finished an action).
  @usableFromInline
  func time(at instant: ContinuousClock.Instant) -> Duration {
    clock.now(at: instant)
  }

  /// Starts the recording at `time`, with `entry` as entry 0.
  func start(at time: Duration, with entry: RecorderEntry) {
    started.withLock { $0 = time }
    book.withLock { $0.initial = entry }
  }

  /// When the recording started: entries are timed from it.
  var origin: Duration { started.withLock { $0 } ?? .zero }

  /// Whether every entry is encoded (for a session file or a listener), and whether a listener
  /// waits (each entry is then encoded as it comes).
  func encode(all: Bool, listened: Bool) {
    book.withLock { book in
      book.encodesAll = all
      book.isListened = listened
    }
  }

  /// Adds a listener of the encoded entries.
  ///
  /// - Returns: Its token, for ``removeListener(_:writesSession:)``.
  func addListener(_ listener: @escaping @Sendable ([DevToolsRecord]) -> Void) -> Int {
    let token = nextListener.withLock { next in
      next += 1
      return next
    }
    listeners.withLock { $0[token] = listener }
    encode(all: true, listened: true)
    return token
  }

  /// Removes the listener of `token`; every entry stays encoded while another listens or a
  /// session file is written.
  func removeListener(_ token: Int, writesSession: Bool) {
    let isListened = listeners.withLock { listeners in
      listeners[token] = nil
      return !listeners.isEmpty
    }
    encode(all: isListened || writesSession, listened: isListened)
  }

  /// The listeners now.
  var listening: [@Sendable ([DevToolsRecord]) -> Void] {
    listeners.withLock { Array($0.values) }
  }

  /// Takes the entries added since the last encoding pass (``RecorderBook/takePending()``),
  /// and whether no entry's size was measured yet.
  func takePending() -> (entries: [RecorderEntry], unmeasured: Bool) {
    book.withLock { book in
      let unmeasured = book.measured == 0
      return (book.takePending(), unmeasured)
    }
  }

  /// Counts `count` more encoded entries of `bytes` in all in the average size, and drops the
  /// oldest beyond the limits.
  func measured(_ count: Int, bytes: Int) {
    book.withLock { $0.measured(count, bytes: bytes, capacity: capacity, maxBytes: maxBytes) }
  }

  /// Keeps a stage's timing for the action running now.
  func addTiming(_ stage: String, _ duration: Duration) {
    book.withLock { $0.pendingTimings.append((stage, duration)) }
  }

  /// Adds an entry, drops the oldest beyond the limits, and wakes the encoding task once a
  /// batch has gathered.
  ///
  /// - Parameter time: The recorder clock's reading as it is; the start is subtracted when the
  ///   entry is encoded.
  @usableFromInline
  func append(
    kind: DevToolsRecord.Kind, source: RecorderSource, time: Duration,
    content: consuming RecordedContent
  ) {
    let recorded = RecordedValues(kind: kind, source: source, time: time, content: content)
    let shouldEncode = book.withLock {
      $0.append(
        recorded, capacity: capacity, maxBytes: maxBytes, batchSize: Self.batchSize,
        sampleEvery: Self.sampleEvery)
    }
    if shouldEncode { encoding.yield() }
  }
}
