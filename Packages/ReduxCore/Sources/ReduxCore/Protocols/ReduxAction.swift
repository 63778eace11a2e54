/// An action a ``Store`` can dispatch.
///
/// The `id` names the *kind* of action: it is what `maxDispatchable` counts when rate limiting,
/// and what logs report. Actions with associated values usually return the case name, so
/// `.save(1)` and `.save(2)` share one rate-limit budget.
///
/// ```swift
/// enum CounterAction: ReduxAction {
///   case increment, add(Int)
///   var id: String {
///     switch self {
///     case .increment: "increment"
///     case .add: "add"
///     }
///   }
/// }
/// ```
public protocol ReduxAction: Identifiable, Equatable, Sendable where ID == String {
  /// The rate-limiting and logging identity of the action.
  var id: String { get }
}
