/// What a developer tool shows of a recording, whatever the app's types: the records so far and
/// the new ones as they come. ``DevToolsRecorder`` is one.
public protocol DevToolsTimeline: AnyObject, Sendable {
  /// The app's name.
  var app: String { get }
  /// The records kept, oldest first.
  func records() -> [DevToolsRecord]
  /// Calls `listener` with each batch of new records; returns a token for
  /// ``removeListener(_:)``.
  @discardableResult
  func addListener(_ listener: @escaping @Sendable ([DevToolsRecord]) -> Void) -> Int
  /// Stops calling the listener of `token`.
  func removeListener(_ token: Int)
}

extension DevToolsRecorder: DevToolsTimeline {}

extension DevToolsTimeline {
  /// What record `index` changed in the state: from the last state recorded before it.
  ///
  /// - Returns: The diff, or `nil` when the record or a state to compare with is not kept.
  /// - Complexity: O(*n*) in the records kept, plus the size of the two states.
  public func diff(at index: Int) -> StateDiff? {
    StateDiff(ofRecord: index, in: records())
  }
}

extension DevToolsSession {
  /// What record `index` changed in the state: from the last state recorded before it.
  ///
  /// - Returns: The diff, or `nil` when the session lacks the record or a state to compare.
  public func diff(at index: Int) -> StateDiff? {
    StateDiff(ofRecord: index, in: records)
  }
}

extension StateDiff {
  /// What record `index` of `records` (in index order) changed: from the last state recorded
  /// before it to its own.
  init?(ofRecord index: Int, in records: [DevToolsRecord]) {
    guard let record = records.first(where: { $0.index == index }), let after = record.state,
      let before = records.last(where: { $0.index < index && $0.state != nil })?.state
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
