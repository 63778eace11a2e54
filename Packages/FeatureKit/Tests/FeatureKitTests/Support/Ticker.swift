import FeatureKit
import Observation
import ReduxCoreTesting
import Synchronization

/// What procedures report outside the state (which may be gone with its view model).
final class Reports: Sendable {
  private let entries = Mutex<[String]>([])
  var all: [String] { entries.withLock { $0 } }
  func append(_ entry: String) { entries.withLock { $0.append(entry) } }
}

/// A feature exercising every kind of procedure.
final class Ticker: FeatureReducer {
  @Observable final class State: BusinessState {
    typealias R = Ticker
    var received: [Int] = []
    var ticks = 0
  }

  enum Action: Sendable {
    case fetch(Int)
    case fetchFailing
    case fetchFailingUncaught
    case waitThenSend
    case startTimer
    case startTimerEvery(Duration)
    case stream([Int])
    case merged
    case sequenced
    case received(Int)
    case tick
    /// Fetches `value` once 100 ms pass without another search.
    case search(Int)
  }

  let clock: ManualClock
  let gate: Gate
  let second: Gate
  let reports: Reports

  init(clock: ManualClock, gate: Gate = Gate(), second: Gate = Gate(), reports: Reports = Reports())
  {
    self.clock = clock
    self.gate = gate
    self.second = second
    self.reports = reports
  }

  func reduce(into state: State, action: Action) -> Procedure<Action, State> {
    let (clock, gate, second, reports) = (clock, gate, second, reports)
    switch action {
    case .fetch(let value):
      return .task { .received(value) }
    case .fetchFailing:
      return .task {
        throw LoadError.offline
      } catch: { error, send in
        reports.append("caught \(error)")
        await send(.received(-1))
      }
    case .fetchFailingUncaught:
      return .run { _ in throw LoadError.offline }
    case .waitThenSend:
      return .run(
        operation: { send in
          do {
            try await clock.sleep(for: .seconds(60))
          } catch {
            reports.append("woke: \(error is CancellationError ? "cancelled" : "\(error)")")
          }
          await send(.received(99))  // after cancellation: must be ignored
          try Task.checkCancellation()
        },
        catch: { error, _ in reports.append("caught \(error)") })
    case .startTimer:
      return .timer(interval: .seconds(1)) { .tick }
    case .startTimerEvery(let interval):
      return .timer(interval: interval) { .tick }
    case .stream(let values):
      return .stream {
        AsyncStream { continuation in
          for value in values { continuation.yield(Action.received(value)) }
          continuation.finish()
        }
      }
    case .merged:
      return .merge(
        .run { send in
          try await gate.wait()
          await send(.received(1))
        },
        .run { send in
          try await second.wait()
          await send(.received(2))
        })
    case .sequenced:
      return .sequence(
        .run { send in
          try await gate.wait()
          await send(.received(1))
          reports.append("first ended")
        },
        .none,
        .run { send in
          reports.append("second started")
          try await second.wait()
          await send(.received(2))
        })
    case .search(let value):
      return .task { .received(value) }
        .admitted(id: "search", policy: .debounce(.milliseconds(100)))
    case .received(let value):
      state.received.append(value)
    case .tick:
      state.ticks += 1
    }
    return .none
  }
}
