/// An action a ``Store`` can dispatch.
///
/// The `id` names the *kind* of action: it is what `maxDispatchable` counts when rate limiting,
/// and what logs report. By default it is the case name, so `.save(1)` and `.save(2)` share
/// one rate-limit budget, and an action needs no `id` of its own:
///
/// ```swift
/// enum CounterAction: ReduxAction {
///   case increment, add(Int)       // ids "increment" and "add"
/// }
/// ```
public protocol ReduxAction: Identifiable, Equatable, Sendable where ID == String {
  /// The rate-limiting and logging identity of the action.
  var id: String { get }
}

extension ReduxAction {
  /// The case name of an enum action (`"add"` for `.add(3)`), or the type name of any other.
  ///
  /// It is derived by reflection, which costs about a microsecond: the store computes it only
  /// for a rate-limited dispatch (`maxDispatchable` above 0) and for logs. An action dispatched
  /// with a limit at a high rate may spell its `id` out with a `switch` instead.
  ///
  /// - Complexity: O(1) in the size of the action's payload, which is not formatted.
  public var id: String {
    let mirror = Mirror(reflecting: self)
    guard mirror.displayStyle == .enum else { return String(describing: Self.self) }
    // NB: a case with a payload reflects as one child labelled with the case name; a case
    // without one has no child and describes itself as its name.
    return mirror.children.first?.label ?? String(describing: self)
  }
}
