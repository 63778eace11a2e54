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

  public var description: String {
    switch self {
    case .rateLimited(let actionID, let limit):
      "rate limited: \(limit) '\(actionID)' action(s) already pending"
    case .queueFull(let capacity):
      "queue full: \(capacity) actions already pending"
    case .shutdown:
      "store shut down"
    }
  }
}
