/// Why a store refused an action.
///
/// A refused action never runs. The non-throwing `dispatch` variants return `false` and report
/// the refusal through the store's `onLog` as ``Store/Event/refused(_:reason:)``; the throwing
/// variants (``Store/tryDispatch(maxDispatchable:_:)``,
/// ``Store/tryDispatchWithResult(maxDispatchable:_:)``) throw it.
public enum DispatchError: Error, Equatable, Sendable, CustomStringConvertible {
  /// `maxDispatchable` actions with this id were already pending.
  case rateLimited(actionID: String, limit: UInt)
  /// The queue already held `capacity` unprocessed actions.
  case queueFull(capacity: Int)
  /// The store was shut down (explicitly or by being released) before the action ran.
  case shutdown
  /// A newer dispatch of this id replaced it under ``AdmissionPolicy/latest``,
  /// ``AdmissionPolicy/debounce(_:maxWait:)`` or a trailing ``AdmissionPolicy/throttle(_:leading:trailing:)``.
  case superseded(actionID: String)
  /// One of this id was admitted less than `interval` ago, under a
  /// ``AdmissionPolicy/throttle(_:leading:trailing:)`` without `trailing`.
  case throttled(actionID: String, interval: Duration)

  public var description: String {
    switch self {
    case .rateLimited(let actionID, let limit):
      "rate limited: \(limit) '\(actionID)' action(s) already pending"
    case .queueFull(let capacity):
      "queue full: \(capacity) actions already pending"
    case .shutdown:
      "store shut down"
    case .superseded(let actionID):
      "superseded by a newer '\(actionID)' action"
    case .throttled(let actionID, let interval):
      "throttled: a '\(actionID)' action was admitted less than \(interval) ago"
    }
  }
}
