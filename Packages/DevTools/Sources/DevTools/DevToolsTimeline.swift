/// What a developer tool shows of a recording, whatever the app's types: the records so far and
/// the new ones as they come. ``DevToolsRecorder`` is one.
public protocol DevToolsTimeline: AnyObject, Sendable {
  /// The app's name.
  var app: String { get }
  /// The records kept, oldest first, with their states.
  func records() -> [DevToolsRecord]
  /// The records after `index` (from the oldest kept when it is negative), at most `limit`,
  /// without their states: a timeline's rows.
  func summaries(after index: Int, limit: Int) -> [DevToolsRecord]
  /// Record `index` with its state, if it is kept.
  func record(at index: Int) -> DevToolsRecord?
  /// What record `index` changed in the state: from the last state recorded before it.
  ///
  /// - Returns: The diff, or `nil` when the record or a state to compare with is not kept.
  func diff(at index: Int) -> StateDiff?
  /// Calls `listener` with each batch of new records; returns a token for
  /// ``removeListener(_:)``.
  @discardableResult
  func addListener(_ listener: @escaping @Sendable ([DevToolsRecord]) -> Void) -> Int
  /// Stops calling the listener of `token`.
  func removeListener(_ token: Int)
}

extension DevToolsRecorder: DevToolsTimeline {}

extension DevToolsTimeline {
  /// The records after `index`, from ``records()``: a timeline of its own may do better.
  ///
  /// - Complexity: O(*n*) in the records kept, states included.
  public func summaries(after index: Int, limit: Int) -> [DevToolsRecord] {
    records().summaries(after: index, limit: limit)
  }

  /// Record `index`, from ``records()``: a timeline of its own may do better.
  ///
  /// - Complexity: O(*n*) in the records kept, states included.
  public func record(at index: Int) -> DevToolsRecord? {
    records().record(at: index)
  }

  /// What record `index` changed, from ``records()``: a timeline of its own may do better.
  ///
  /// - Returns: The diff, or `nil` when the record or a state to compare with is not kept.
  /// - Complexity: O(*n*) in the records kept, plus the size of the two states.
  public func diff(at index: Int) -> StateDiff? {
    StateDiff(ofRecord: index, in: records())
  }
}

extension DevToolsSession {
  /// The records after `index` (from the first when it is negative), at most `limit`, without
  /// their states: a timeline's rows.
  ///
  /// - Complexity: O(log *n* + `limit`).
  public func summaries(after index: Int, limit: Int) -> [DevToolsRecord] {
    records.summaries(after: index, limit: limit)
  }

  /// Record `index` with its state, if the session has it.
  ///
  /// - Complexity: O(log *n*).
  public func record(at index: Int) -> DevToolsRecord? {
    records.record(at: index)
  }

  /// What record `index` changed in the state: from the last state recorded before it.
  ///
  /// - Returns: The diff, or `nil` when the session lacks the record or a state to compare.
  public func diff(at index: Int) -> StateDiff? {
    StateDiff(ofRecord: index, in: records)
  }
}

extension [DevToolsRecord] {
  /// The position of the first record after `index`, in records in index order.
  fileprivate func position(after index: Int) -> Int {
    var low = 0
    var high = count
    while low < high {
      let middle = (low + high) / 2
      if self[middle].index <= index { low = middle + 1 } else { high = middle }
    }
    return low
  }

  /// At most `limit` records after `index`, without their states.
  fileprivate func summaries(after index: Int, limit: Int) -> [DevToolsRecord] {
    let start = position(after: index)
    return self[start..<Swift.min(start + Swift.max(limit, 0), count)].map { $0.withoutState() }
  }

  /// Record `index`, if it is there.
  fileprivate func record(at index: Int) -> DevToolsRecord? {
    let found = position(after: index - 1)
    return found < count && self[found].index == index ? self[found] : nil
  }
}

extension StateDiff {
  /// What record `index` of `records` (in index order) changed: from the last state recorded
  /// before it to its own.
  init?(ofRecord index: Int, in records: [DevToolsRecord]) {
    let found = records.position(after: index - 1)
    guard found < records.count, records[found].index == index,
      let after = records[found].state,
      let before = records[..<found].last(where: { $0.state != nil })?.state
    else { return nil }
    self.init(from: before, to: after)
  }
}

/// Time travel as a developer tool drives it, whatever the app's types. ``DevToolsTimeTravel``
/// is one.
@MainActor
public protocol DevToolsTravelControl: AnyObject, Sendable {
  /// The entry shown, or `nil` while live.
  var position: Int? { get }
  /// The entries left out of the recomputed state.
  var skipped: Set<Int> { get }
  /// Shows the state after entry `index`, the store paused.
  func jump(to index: Int) throws(DevToolsTravelError)
  /// Moves `offset` entries back or forward.
  func step(by offset: Int) throws(DevToolsTravelError)
  /// Leaves entry `index` out (or puts it back) and recomputes.
  func skip(_ index: Int) async throws(DevToolsTravelError)
  /// Back to the present; the held actions run.
  func resume()
}

extension DevToolsTimeTravel: DevToolsTravelControl {}
