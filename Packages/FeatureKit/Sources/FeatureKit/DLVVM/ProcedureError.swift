/// Why a procedure could not run as asked. Like any error a procedure throws, it goes to the
/// view model's logger (there is no `catch` to give it to).
public enum ProcedureError: Error, Equatable, Sendable, CustomStringConvertible {
  /// ``Procedure/timer(interval:action:)`` was given a period of zero or less, which would tick
  /// without pause: the timer does not tick at all.
  case timerIntervalNotPositive(Duration)

  public var description: String {
    switch self {
    case .timerIntervalNotPositive(let interval):
      "a timer's interval must be positive, not \(interval): the timer does not run"
    }
  }
}
