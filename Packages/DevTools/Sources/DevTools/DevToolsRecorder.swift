import DequeModule
import Foundation
public import ReduxCore
import Synchronization

/// Records what a ReduxCore `Store` does: every action it runs or refuses, who dispatched it, what
/// happened, how long it took and the state after it, in a bounded ring buffer, and optionally
/// in a session file. Pass it as the store's inspector:
///
/// ```swift
/// let recorder = DevToolsRecorder<AppState, AppAction, AppState.UndoSnapshot>(
///   app: "notes", snapshot: { $0.undoSnapshot })
/// let store = Store(initialState: state, reducers: reducers, inspector: recorder)  // ReduxCore
/// recorder.start(from: store)    // the state the recording starts from: record 0
/// ```
///
/// Recording keeps the action and the state's snapshot as values (a copy-on-write snapshot
/// costs a retain); encoding them to JSON (for the file, a page, an export) happens later, off
/// the main actor, in batches. So a recorded dispatch costs little more than an unrecorded one
/// (Benchmarks: `DevToolsContenders`).
///
/// The app's types say what can be recorded: the action must be `Codable`, and the state is
/// recorded through a `Codable` projection the app chooses (`snapshot`). A type that is not
/// `Codable` does not compile, rather than recording nothing at run time.
public final class DevToolsRecorder<
  State: ReduxState, Action: ReduxAction & Codable, Snapshot: Codable & Sendable
>: StoreInspector, Sendable {
  /// How much the ring buffer keeps; the oldest entries go first.
  public struct Limits: Sendable {
    /// The most entries kept.
    public var capacity: Int
    /// The most bytes of encoded entries kept (entries not encoded yet count once encoded).
    public var maxBytes: Int

    /// - Parameters:
    ///   - capacity: The most entries kept (at least 1).
    ///   - maxBytes: The most bytes of encoded entries kept.
    public init(capacity: Int = 10_000, maxBytes: Int = 64 << 20) {
      self.capacity = max(capacity, 1)
      self.maxBytes = max(maxBytes, 1)
    }
  }

  struct Entry: Sendable {
    let index: Int
    let kind: DevToolsRecord.Kind
    let name: String
    let action: Action?
    /// An event's payload, already JSON (a feature's action, a query key).
    let payload: JSONValue?
    let source: String
    let outcome: DevToolsRecord.Outcome
    let detail: String?
    let time: Duration
    let duration: Duration?
    let snapshot: Snapshot?
    /// Its size once encoded; `nil` until then.
    var bytes: Int?
  }

  struct Book: Sendable {
    var entries = Deque<Entry>()
    var nextIndex = 1
    var bytes = 0
    var unencoded = 0
    var initial: Entry?
    var evicted = 0
  }

  /// What the recorder and its encoding task share.
  final class Buffer: Sendable {
    let book = Mutex(Book())
    let listeners = Mutex<[Int: @Sendable ([DevToolsRecord]) -> Void]>([:])
    let nextListener = Mutex(0)
    /// Held for a whole encoding pass: the task's and a `flush()` never take the same entries,
    /// or the file would get their lines twice.
    let encoding = Mutex(())
  }

  /// The app's name, written in the session file's header.
  public let app: String
  /// How much the ring buffer keeps.
  public let limits: Limits
  private let buffer = Buffer()
  private let clock: ClockReader
  /// When ``start(from:)`` was called, on ``clock``.
  private let started = Mutex<Duration?>(nil)
  private let snapshot: @MainActor @Sendable (State.ReadOnly) -> Snapshot
  private let classify: @Sendable (Action) -> String?
  private let session: DevToolsSessionWriter?
  private let encoding: AsyncStream<Void>.Continuation
  private let encoder: Task<Void, Never>

  /// How many entries are encoded at once, off the main actor.
  static var batchSize: Int { 64 }

  /// - Parameters:
  ///   - app: The app's name, for the session file.
  ///   - limits: How much the ring buffer keeps.
  ///   - clock: The clock of the entries' times (a `ManualClock` in tests).
  ///   - session: A session file to write every entry to, in batches.
  ///   - classify: Names the source of an action the app knows better than the store does
  ///     (`"remote"` for another instance's changes, say); `nil` keeps the store's.
  ///   - snapshot: The part of the state to record, as a `Codable` value; cheap to take (a
  ///     copy-on-write value). For time travel, the state's `undoSnapshot`.
  public init(
    app: String, limits: Limits = Limits(), clock: any Clock<Duration> = ContinuousClock(),
    session: DevToolsSessionWriter? = nil,
    classify: @escaping @Sendable (Action) -> String? = { _ in nil },
    snapshot: @escaping @MainActor @Sendable (State.ReadOnly) -> Snapshot
  ) {
    self.app = app
    self.limits = limits
    self.clock = ClockReader(clock)
    self.session = session
    self.classify = classify
    self.snapshot = snapshot
    let (signals, continuation) = AsyncStream.makeStream(
      of: Void.self, bufferingPolicy: .bufferingNewest(1))
    encoding = continuation
    let buffer = buffer
    let limits = limits
    encoder = Task.detached {
      for await _ in signals {
        Self.encodePending(in: buffer, limits: limits, session: session)
      }
    }
  }

  deinit {
    encoding.finish()
  }

  /// Records the store's current state as entry 0, the point a replay starts from. Call it
  /// before the first action runs.
  @MainActor
  public func start(from store: Store<State, Action>) {
    let now = clock.now()
    started.withLock { $0 = now }
    let entry = Entry(
      index: 0, kind: .action, name: "@start", action: nil, payload: nil, source: "recorder",
      outcome: .event, detail: nil, time: .zero, duration: nil, snapshot: snapshot(store.state),
      bytes: nil)
    buffer.book.withLock { $0.initial = entry }
  }

  // MARK: - StoreInspector

  @MainActor
  public func storeDidRun(
    _ action: Action, source: ActionSource, outcome: DispatchOutcome, state: State.ReadOnly,
    duration: Duration
  ) {
    let (kind, detail): (DevToolsRecord.Outcome, String?) =
      switch outcome {
      case .reduced: (.reduced, nil)
      case .stopped(let middleware): (.stopped, middleware)
      case .failed(let error, let origin, let handledBy):
        (.failed, "\(error) (from \(origin)\(handledBy.map { ", handled by \($0)" } ?? ""))")
      case .refused(let reason): (.refused, "\(reason)")
      }
    append(
      name: action.id, action: action, payload: nil, source: classify(action) ?? "\(source)",
      outcome: kind, detail: detail, duration: duration, snapshot: snapshot(state))
  }

  public func storeDidRefuse(_ action: Action, reason: DispatchError) {
    append(
      name: action.id, action: action, payload: nil, source: classify(action) ?? "caller",
      outcome: .refused, detail: "\(reason)", duration: nil, snapshot: nil)
  }

  // MARK: - Other events

  /// Records an event beside the store's actions: a feature's action, a query cache event.
  ///
  /// - Parameters:
  ///   - kind: ``DevToolsRecord/Kind/feature`` or ``DevToolsRecord/Kind/query``.
  ///   - name: What happened (`"fetch"`, a feature action's name).
  ///   - source: Who (a feature's name, `"query"`).
  ///   - payload: Its details, as JSON.
  public func record(
    _ kind: DevToolsRecord.Kind, name: String, source: String, payload: JSONValue? = nil
  ) {
    append(
      kind: kind, name: name, action: nil, payload: payload, source: source, outcome: .event,
      detail: nil, duration: nil, snapshot: nil)
  }

  private func append(
    kind: DevToolsRecord.Kind = .action, name: String, action: Action?, payload: JSONValue?,
    source: String, outcome: DevToolsRecord.Outcome, detail: String?, duration: Duration?,
    snapshot: Snapshot?
  ) {
    let time = elapsed()
    let shouldEncode = buffer.book.withLock { book in
      let entry = Entry(
        index: book.nextIndex, kind: kind, name: name, action: action, payload: payload,
        source: source, outcome: outcome, detail: detail, time: time, duration: duration,
        snapshot: snapshot, bytes: nil)
      book.nextIndex += 1
      book.entries.append(entry)
      book.unencoded += 1
      if book.entries.count > limits.capacity { Self.evictOldest(&book) }
      return book.unencoded >= Self.batchSize
    }
    if shouldEncode { encoding.yield() }
  }

  private func elapsed() -> Duration {
    guard let origin = started.withLock({ $0 }) else { return .zero }
    return clock.now() - origin
  }

  // MARK: - Reading

  /// The snapshot the recorder takes, of `store`'s state now.
  @MainActor
  public func takeSnapshot(of store: Store<State, Action>) -> Snapshot {
    snapshot(store.state)
  }

  /// The index of the next entry.
  public var nextIndex: Int { buffer.book.withLock { $0.nextIndex } }

  /// How many entries the limits have evicted so far.
  public var evictedCount: Int { buffer.book.withLock { $0.evicted } }

  /// The entries kept, oldest first, entry 0 (the start) included while it is kept, encoded.
  ///
  /// - Complexity: O(*n*) encodings of the entries not encoded yet.
  public func records() -> [DevToolsRecord] {
    let (initial, entries) = buffer.book.withLock { ($0.initial, Array($0.entries)) }
    return ([initial].compactMap { $0 } + entries).compactMap { Self.record(of: $0) }
  }

  /// The state snapshot recorded after entry `index` (0: the start), if it is kept.
  public func snapshot(at index: Int) -> Snapshot? {
    buffer.book.withLock { book in
      if index == 0 { return book.initial?.snapshot }
      guard let first = book.entries.first?.index, index >= first,
        index - first < book.entries.count
      else { return nil }
      return book.entries[index - first].snapshot
    }
  }

  /// The actions kept after entry `index`, in order, with their indices: what a replay runs.
  public func actions(after index: Int) -> [(index: Int, action: Action)] {
    buffer.book.withLock { book in
      book.entries.compactMap { entry in
        guard entry.index > index, entry.kind == .action, entry.outcome != .refused,
          let action = entry.action
        else { return nil }
        return (entry.index, action)
      }
    }
  }

  /// Calls `listener` with every batch of entries once encoded (a page's live updates), until
  /// the returned token is passed to ``removeListener(_:)``.
  @discardableResult
  public func addListener(_ listener: @escaping @Sendable ([DevToolsRecord]) -> Void) -> Int {
    let token = buffer.nextListener.withLock { next in
      next += 1
      return next
    }
    buffer.listeners.withLock { $0[token] = listener }
    return token
  }

  /// Stops calling the listener ``addListener(_:)`` returned `token` for.
  public func removeListener(_ token: Int) {
    buffer.listeners.withLock { $0[token] = nil }
  }

  /// Encodes what is pending now, writes it to the session file, and tells the listeners.
  public func flush() {
    Self.encodePending(in: buffer, limits: limits, session: session)
  }

  // MARK: - Encoding (off the main actor)

  private static func record(of entry: Entry) -> DevToolsRecord? {
    let payload = entry.payload ?? entry.action.flatMap { try? JSONValue(encoding: $0) }
    return DevToolsRecord(
      index: entry.index, kind: entry.kind, name: entry.name, payload: payload,
      source: entry.source, outcome: entry.outcome, detail: entry.detail,
      time: entry.time / .seconds(1), duration: entry.duration.map { $0 / .seconds(1) },
      state: entry.snapshot.flatMap { try? JSONValue(encoding: $0) })
  }

  private static func evictOldest(_ book: inout Book) {
    guard let oldest = book.entries.popFirst() else { return }
    book.evicted += 1
    if let bytes = oldest.bytes { book.bytes -= bytes } else { book.unencoded -= 1 }
  }

  private static func encodePending(
    in buffer: Buffer, limits: Limits, session: DevToolsSessionWriter?
  ) {
    buffer.encoding.withLock { _ in encodePendingAlone(in: buffer, limits: limits, session: session)
    }
  }

  private static func encodePendingAlone(
    in buffer: Buffer, limits: Limits, session: DevToolsSessionWriter?
  ) {
    let pending = buffer.book.withLock { book in
      book.entries.filter { $0.bytes == nil }
    }
    guard !pending.isEmpty else { return }
    var records: [DevToolsRecord] = []
    var lines: [(index: Int, line: Data)] = []
    for entry in pending {
      guard let record = record(of: entry),
        var line = try? JSONValue.encoder.encode(record)
      else { continue }
      line.append(0x0A)
      records.append(record)
      lines.append((entry.index, line))
    }
    session?.write(lines.map(\.line))
    let sizes = Dictionary(lines.map { ($0.index, $0.line.count) }, uniquingKeysWith: { $1 })
    buffer.book.withLock { book in
      for position in book.entries.indices where book.entries[position].bytes == nil {
        guard let size = sizes[book.entries[position].index] else { continue }
        book.entries[position].bytes = size
        book.bytes += size
        book.unencoded -= 1
      }
      while book.bytes > limits.maxBytes, book.entries.count > 1 { evictOldest(&book) }
    }
    let listening = buffer.listeners.withLock { Array($0.values) }
    for listener in listening { listener(records) }
  }
}
