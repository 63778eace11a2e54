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
    /// The most bytes kept, as encoded entries: the entries times their average encoded size,
    /// measured on a sample of them (every entry when a session file or a listener encodes
    /// them all anyway).
    public var maxBytes: Int

    /// - Parameters:
    ///   - capacity: The most entries kept (at least 1).
    ///   - maxBytes: The most bytes of encoded entries kept.
    public init(capacity: Int = 10_000, maxBytes: Int = 64 << 20) {
      self.capacity = max(capacity, 1)
      self.maxBytes = max(maxBytes, 1)
    }
  }

  /// The app's name, written in the session file's header.
  public let app: String
  /// How much the ring buffer keeps.
  public let limits: Limits
  @usableFromInline let buffer: RecorderBuffer
  @usableFromInline let snapshot: @MainActor @Sendable (State.ReadOnly) -> Snapshot
  @usableFromInline let classify: (@Sendable (Action) -> String?)?
  private let session: DevToolsSessionWriter?
  private let encoder: Task<Void, Never>

  /// How many entries are encoded at once, off the main actor.
  static var batchSize: Int { RecorderBuffer.batchSize }

  /// - Parameters:
  ///   - app: The app's name, for the session file.
  ///   - limits: How much the ring buffer keeps.
  ///   - clock: The clock of the entries' times (a `ManualClock` in tests).
  ///   - session: A session file to write every entry to, in batches.
  ///   - classify: Names the source of an action the app knows better than the store does
  ///     (`"remote"` for another instance's changes, say); `nil` keeps the store's.
  ///   - summary: Says what an action touched, in the app's words (`#12 → Done`), for the
  ///     timeline's rows (``DevToolsRecord/summary``); `nil` for an action left to its payload.
  ///     Called when a record is read or written to the session file, off the app's path.
  ///   - snapshot: The part of the state to record, as a `Codable` value; cheap to take (a
  ///     copy-on-write value). For time travel, the state's `undoSnapshot`.
  public init(
    app: String, limits: Limits = Limits(), clock: any Clock<Duration> = ContinuousClock(),
    session: DevToolsSessionWriter? = nil,
    classify: (@Sendable (Action) -> String?)? = nil,
    summary: (@Sendable (Action) -> String?)? = nil,
    snapshot: @escaping @MainActor @Sendable (State.ReadOnly) -> Snapshot
  ) {
    self.app = app
    self.limits = limits
    self.session = session
    self.classify = classify
    self.snapshot = snapshot
    let (signals, continuation) = AsyncStream.makeStream(
      of: Void.self, bufferingPolicy: .bufferingNewest(1))
    var summarize: (@Sendable (any ReduxAction & Encodable) -> String?)?
    if let summary {
      summarize = { action in (action as? Action).flatMap(summary) }
    }
    let buffer = RecorderBuffer(
      limits: limits, clock: ClockReader(clock), encoding: continuation, summarize: summarize)
    buffer.encode(all: session != nil, listened: false)
    self.buffer = buffer
    encoder = Task.detached {
      for await _ in signals {
        Self.encodePending(in: buffer, session: session)
      }
    }
  }

  deinit {
    buffer.encoding.finish()
  }

  /// Records the store's current state as entry 0, the point a replay starts from (written to
  /// the session file at once). Call it before the first action runs.
  @MainActor
  public func start(from store: Store<State, Action>) {
    let now = buffer.clock.now()
    let entry = RecorderEntry(
      index: 0,
      recorded: RecordedValues(
        kind: .action, source: .named("recorder"), time: now,
        content: .event(name: "@start", payload: nil, snapshot: snapshot(store.state))))
    buffer.start(at: now, with: entry)
    // NB: the session file starts with it too, before any batch: a replay of the file starts
    // from its state.
    guard let session else { return }
    buffer.encodingPass.withLock { _ in
      guard
        let record = Self.record(
          of: entry, since: now, withState: true, summarize: buffer.summarize),
        var line = try? JSONValue.encoder.encode(record)
      else { return }
      line.append(0x0A)
      session.write([line])
    }
  }

  // MARK: - StoreInspector

  // NB: inlinable, so that the app's module specializes the recording path for its types;
  // run generically, it looked up generic metadata for every action.
  @inlinable @MainActor
  public func storeDidRun(
    _ action: Action, source: ActionSource, outcome: DispatchOutcome, state: State.ReadOnly,
    duration: Duration, finished: ContinuousClock.Instant
  ) {
    buffer.append(
      kind: .action, source: classify?(action).map(RecorderSource.named) ?? .store(source),
      time: buffer.time(at: finished),
      content: .ran(action, outcome: outcome, duration: duration, snapshot: snapshot(state)))
  }

  /// Keeps the timings the store reports while an action runs, for that action's record: pass
  /// it as the store's `onLog` (or call it from yours). A store reads no clock for its stages
  /// without an `onLog`.
  ///
  /// ```swift
  /// let store = Store(…, inspector: recorder, onLog: { recorder.log($0); logger.log($0) })
  /// ```
  ///
  /// - Parameter entry: What the store reported; its stages' timings are kept, the rest ignored.
  public func log(_ entry: Store<State, Action>.Log) {
    switch entry {
    case .middleware(let id, _, let duration, _): buffer.addTiming("middleware \(id)", duration)
    case .reducer(let id, _, let duration, _): buffer.addTiming("reducer \(id)", duration)
    case .resolver(let id, _, let duration, _, _): buffer.addTiming("resolver \(id)", duration)
    case .store: break
    }
  }

  @inlinable
  public func storeDidRefuse(_ action: Action, reason: DispatchError) {
    buffer.append(
      kind: .action, source: classify?(action).map(RecorderSource.named) ?? .store(.caller),
      time: buffer.time(at: .now), content: .refused(action, reason: reason))
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
    buffer.append(
      kind: kind, source: .named(source), time: buffer.clock.now(),
      content: .event(name: name, payload: payload, snapshot: nil))
  }

  /// Records that time travel resumed on a state recomputed without the entries `skipped`
  /// (a ``DevToolsRecord/Kind/travel`` entry): a session file or an export then replays to the
  /// state the app went on from.
  ///
  /// - Parameters:
  ///   - skipped: The indices of the entries left out.
  ///   - snapshot: The state the store resumed on.
  public func recordResume(skipping skipped: [Int], on snapshot: Snapshot) {
    buffer.append(
      kind: .travel, source: .named("devtools"), time: buffer.clock.now(),
      content: .event(
        name: "resumed without #" + skipped.map(String.init).joined(separator: ", #"),
        payload: .array(skipped.map { .number(Double($0)) }), snapshot: snapshot))
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

  /// How many entries the ring buffer holds (the start aside): the newest ones.
  public var keptCount: Int { buffer.book.withLock { $0.count } }

  /// The entries kept, oldest first, entry 0 (the start) included while it is kept, encoded.
  ///
  /// - Complexity: O(*n*) encodings of the entries not encoded yet.
  public func records() -> [DevToolsRecord] {
    let (initial, entries) = buffer.book.withLock { ($0.initial, $0.entries(from: 1)) }
    let origin = buffer.origin
    return ([initial].compactMap { $0 } + entries).compactMap {
      Self.record(of: $0, since: origin, withState: true, summarize: buffer.summarize)
    }
  }

  /// The state snapshot recorded after entry `index` (0: the start), if it is kept.
  public func snapshot(at index: Int) -> Snapshot? {
    buffer.book.withLock { $0.entry(at: index)?.snapshot as? Snapshot }
  }

  /// The records after `index` (from the start when it is negative), at most `limit`, without
  /// their states: a timeline's rows.
  ///
  /// - Complexity: O(`limit`), whatever the number of records kept: only those are encoded.
  public func summaries(after index: Int, limit: Int) -> [DevToolsRecord] {
    let entries: [RecorderEntry] = buffer.book.withLock { book in
      var entries: [RecorderEntry] = []
      if index < 0, limit > 0, let initial = book.initial { entries.append(initial) }
      return entries + book.entries(from: max(index + 1, 1), limit: max(limit - entries.count, 0))
    }
    let origin = buffer.origin
    return entries.compactMap {
      Self.record(of: $0, since: origin, withState: false, summarize: buffer.summarize)
    }
  }

  /// Record `index` with its state (0: the start), if it is kept.
  ///
  /// - Complexity: O(1) in the records kept, plus encoding its state.
  public func record(at index: Int) -> DevToolsRecord? {
    guard let entry = buffer.book.withLock({ $0.entry(at: index) }) else { return nil }
    return Self.record(
      of: entry, since: buffer.origin, withState: true,
      summarize: buffer.summarize)
  }

  /// What record `index` changed in the state: from the last state kept before it (usually its
  /// neighbour's) to its own.
  ///
  /// - Returns: The diff, or `nil` when the record or a state to compare with is not kept.
  /// - Complexity: O(1) in the records kept when the record before it has a state (O(*k*) past
  ///   *k* records without one), plus encoding and comparing the two states.
  public func diff(at index: Int) -> StateDiff? {
    let pair: (before: RecorderEntry, after: RecorderEntry)? = buffer.book.withLock { book in
      guard let after = book.entry(at: index), after.snapshot != nil else { return nil }
      var candidate = index - 1
      while candidate > 0, let entry = book.entry(at: candidate) {
        if entry.snapshot != nil { return (entry, after) }
        candidate -= 1
      }
      guard index > 0, let initial = book.initial, initial.snapshot != nil else { return nil }
      return (initial, after)
    }
    guard let pair else { return nil }
    let origin = buffer.origin
    guard
      let before = Self.record(
        of: pair.before, since: origin, withState: true, summarize: buffer.summarize)?.state,
      let after = Self.record(
        of: pair.after, since: origin, withState: true, summarize: buffer.summarize)?.state
    else { return nil }
    return StateDiff(from: before, to: after)
  }

  /// The actions kept after entry `index`, in order, with their indices: what a replay runs.
  public func actions(after index: Int) -> [(index: Int, action: Action)] {
    buffer.book.withLock { book in
      book.entries(from: index + 1).compactMap { entry in
        guard entry.kind == .action, let outcome = entry.outcome,
          !outcome.isRefused, let action = entry.action as? Action
        else { return nil }
        return (entry.index, action)
      }
    }
  }

  /// Calls `listener` with the entries as they come, encoded (a page's live updates), until
  /// the returned token is passed to ``removeListener(_:)``.
  @discardableResult
  public func addListener(_ listener: @escaping @Sendable ([DevToolsRecord]) -> Void) -> Int {
    buffer.addListener(listener)
  }

  /// Stops calling the listener ``addListener(_:)`` returned `token` for.
  public func removeListener(_ token: Int) {
    buffer.removeListener(token, writesSession: session != nil)
  }

  /// Encodes what is pending now, writes it to the session file, and tells the listeners.
  public func flush() {
    Self.encodePending(in: buffer, session: session)
  }

  // MARK: - Encoding (off the main actor)

  /// The record of `entry`, timed from `origin` (when the recording started), with its state
  /// encoded or without it.
  private static func record(
    of entry: RecorderEntry, since origin: Duration, withState: Bool,
    summarize: (@Sendable (any ReduxAction & Encodable) -> String?)?
  ) -> DevToolsRecord? {
    // NB: an action or state that does not encode is said in the record's detail: a replay
    // then knows why it has nothing to compare, instead of finding a record without them.
    var problems: [String] = []
    func encoded(_ value: (any Encodable)?, _ what: String) -> JSONValue? {
      guard let value else { return nil }
      do {
        return try JSONValue(encoding: value)
      } catch {
        problems.append("\(what) not recorded: \(error)")
        return nil
      }
    }
    let payload = entry.payload ?? encoded(entry.action, "action")
    let state = withState ? encoded(entry.snapshot, "state") : nil
    let source =
      switch entry.source {
      case .store(let source): "\(source)"
      case .named(let name): name
      }
    let (outcome, detail): (DevToolsRecord.Outcome, String?) =
      switch entry.outcome {
      case nil: (.event, nil)
      case .reduced?: (.reduced, nil)
      case .stopped(let middleware)?: (.stopped, middleware)
      case .failed(let error, let origin, let handledBy)?:
        (.failed, "\(error) (from \(origin)\(handledBy.map { ", handled by \($0)" } ?? ""))")
      case .refused(let reason)?: (.refused, "\(reason)")
      }
    let details = [detail].compactMap { $0 } + problems
    return DevToolsRecord(
      index: entry.index, kind: entry.kind, name: entry.name ?? entry.action?.id ?? "?",
      payload: payload, source: source, outcome: outcome,
      detail: details.isEmpty ? nil : details.joined(separator: "; "),
      time: max(entry.time - origin, .zero) / .seconds(1),
      duration: entry.duration.map { $0 / .seconds(1) },
      state: state,
      timings: entry.timings.isEmpty
        ? nil
        : Dictionary(entry.timings.map { ($0.0, $0.1 / .seconds(1)) }, uniquingKeysWith: +),
      summary: summarize.flatMap { summarize in entry.action.flatMap(summarize) })
  }

  private static func encodePending(in buffer: RecorderBuffer, session: DevToolsSessionWriter?) {
    buffer.encodingPass.withLock { _ in encodePendingAlone(in: buffer, session: session) }
  }

  /// Encodes the entries added since the last pass, writes them to the session file and hands
  /// them to the listeners; with neither, encodes only the newest, to measure the size.
  private static func encodePendingAlone(in buffer: RecorderBuffer, session: DevToolsSessionWriter?)
  {
    let listening = buffer.listening
    let (pending, unmeasured) = buffer.takePending()
    guard !pending.isEmpty else { return }
    let origin = buffer.origin
    // NB: listeners (a page's live rows) get summaries: a state is encoded only for the session
    // file, and now and then to measure the size of a record (the last entry of a sampling
    // pass; while listened to, a pass runs per entry, so the first and one in `sampleEvery`).
    var records: [DevToolsRecord] = []
    var lines: [Data] = []
    for position in pending.indices {
      let measured =
        session != nil
        || (position == pending.count - 1
          && (listening.isEmpty || unmeasured
            || pending[position].index % RecorderBuffer.sampleEvery == 0))
      guard
        let record = record(
          of: pending[position], since: origin, withState: measured, summarize: buffer.summarize)
      else { continue }
      if measured, var line = try? JSONValue.encoder.encode(record) {
        line.append(0x0A)
        lines.append(line)
      }
      if !listening.isEmpty { records.append(record.state == nil ? record : record.withoutState()) }
    }
    if let session, !lines.isEmpty { session.write(lines) }
    buffer.measured(lines.count, bytes: lines.reduce(0) { $0 + $1.count })
    for listener in listening { listener(records) }
  }
}

extension DispatchOutcome {
  /// Whether the action never ran.
  var isRefused: Bool {
    if case .refused = self { true } else { false }
  }
}

/// One entry as recorded: its place in the recording, and what was recorded, kept as values as
/// they came and turned into text and JSON only when encoded, off the recording path.
///
/// NB: not generic. The store calls its recorder through an existential, so the recording path
/// runs unspecialized; with entries generic over the app's types, every action looked up the
/// generic metadata of the entry, the ring buffer and their lock (about 7,000 instructions).
@usableFromInline
struct RecorderEntry: Sendable {
  @usableFromInline let index: Int
  @usableFromInline let recorded: RecordedValues
  /// The stages' timings logged while it ran.
  @usableFromInline let timings: [(String, Duration)]

  @inlinable
  init(index: Int, recorded: RecordedValues, timings: [(String, Duration)] = []) {
    self.index = index
    self.recorded = recorded
    self.timings = timings
  }

  var kind: DevToolsRecord.Kind { recorded.kind }
  var source: RecorderSource { recorded.source }
  var time: Duration { recorded.time }

  /// An event's name; an action's is its id, read when encoded.
  var name: String? {
    if case .event(let name, _, _) = recorded.content { name } else { nil }
  }

  var action: (any ReduxAction & Encodable)? {
    switch recorded.content {
    case .ran(let action, _, _, _), .refused(let action, _): action
    case .event: nil
    }
  }

  /// An event's payload, already JSON (a feature's action, a query key).
  var payload: JSONValue? {
    if case .event(_, let payload, _) = recorded.content { payload } else { nil }
  }

  /// What happened to an action; `nil` for an event.
  var outcome: DispatchOutcome? {
    switch recorded.content {
    case .ran(_, let outcome, _, _): outcome
    case .refused(_, let reason): .refused(reason)
    case .event: nil
    }
  }

  var duration: Duration? {
    if case .ran(_, _, let duration, _) = recorded.content { duration } else { nil }
  }

  /// The state after it, if it has one.
  var snapshot: (any Encodable & Sendable)? {
    switch recorded.content {
    case .ran(_, _, _, let snapshot): snapshot
    case .event(_, _, let snapshot): snapshot
    case .refused: nil
    }
  }
}

/// What an entry recorded.
///
/// NB: a class, made once outside the ring buffer's lock: a struct of this size was copied into
/// the ring buffer and its copy destroyed, through its existentials' value witnesses; a
/// reference moves in.
@usableFromInline
final class RecordedValues: Sendable {
  @usableFromInline let kind: DevToolsRecord.Kind
  @usableFromInline let source: RecorderSource
  @usableFromInline let time: Duration
  @usableFromInline let content: RecordedContent

  @inlinable
  init(
    kind: DevToolsRecord.Kind, source: RecorderSource, time: Duration,
    content: consuming RecordedContent
  ) {
    self.kind = kind
    self.source = source
    self.time = time
    self.content = content
  }
}

/// An action and what it did, or an event.
///
/// NB: an enum of what each kind has, rather than optionals: an optional existential is
/// destroyed through `Optional`'s generic value witness (about 100 instructions each, twice per
/// entry evicted from a full ring buffer).
@usableFromInline
enum RecordedContent: Sendable {
  /// An action the store ran, what happened, and the state after it.
  case ran(
    any ReduxAction & Encodable, outcome: DispatchOutcome, duration: Duration,
    snapshot: any Encodable & Sendable)
  /// An action the store refused.
  case refused(any ReduxAction & Encodable, reason: DispatchError)
  /// An event beside the actions (a feature's action, a query event, time travel, the start).
  case event(name: String, payload: JSONValue?, snapshot: (any Encodable & Sendable)?)
}

/// Who an entry came from, turned into text when encoded.
@usableFromInline
enum RecorderSource: Sendable {
  case store(ActionSource)
  case named(String)
}
