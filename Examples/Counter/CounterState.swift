import ReduxKit

/// The counter's state: a count and how many increments were refused.
@MainActor
@Observable
final class CounterState: ReduxState {
  var count = 0
  var errors: [String] = []
}

enum CounterAction: ReduxAction {
  case increment
  case add(Int)
  case reset
  case recordError(String)
}

struct NegativeAmount: Error, CustomStringConvertible {
  let amount: Int
  var description: String { "cannot add \(amount): negative amounts are refused" }
}
