import FeatureKit
import Logging
import Observation
import ReduxCoreTesting
import Testing

@MainActor
@Suite(.timeLimit(.minutes(1))) struct ProcedureTests {
  let clock = ManualClock()
  let gate = Gate()
  let second = Gate()
  let reports = Reports()

  func makeViewModel(logs: LogRecorder? = nil) -> ViewModelOf<Ticker> {
    ViewModelOf<Ticker>(
      initialState: .init(),
      reducer: Ticker(clock: clock, gate: gate, second: second, reports: reports),
      clock: clock, logger: logs?.logger ?? .init(label: "test"))
  }

  @Test func task_sends_the_action_it_returns_and_awaiting_send_waits_for_it() async {
    let viewModel = makeViewModel()
    await viewModel.send(.fetch(7)).value
    #expect(viewModel.received == [7])
    #expect(viewModel.runningTaskCount == 0)
  }

  @Test func errors_reach_catch_which_can_send_or_the_log_without_one() async {
    let logs = LogRecorder()
    let viewModel = makeViewModel(logs: logs)
    await viewModel.send(.fetchFailing).value
    #expect(reports.all == ["caught offline"])
    #expect(viewModel.received == [-1])
    await viewModel.send(.fetchFailingUncaught).value
    #expect(logs.messages(at: .error) == ["procedure for fetchFailingUncaught failed: offline"])
  }

  @Test func a_cancelled_procedure_never_reaches_catch_and_cannot_send() async {
    var viewModel: ViewModelOf<Ticker>? = makeViewModel()
    let state = viewModel!.state
    let procedure = viewModel!.send(.waitThenSend)
    while clock.sleeperCount == 0 { await Task.yield() }
    viewModel = nil  // the view model goes away: its procedures are cancelled
    await procedure.value
    #expect(reports.all == ["woke: cancelled"])  // the CancellationError it rethrew was not caught
    #expect(state.received.isEmpty)  // its send after cancellation was ignored
  }

  /// A period of zero would tick without pause: the timer does not run, and says why.
  @Test(arguments: [Duration.zero, .seconds(-1)])
  func aTimerWithoutAPositiveIntervalDoesNotRunAndIsLogged(interval: Duration) async {
    let logs = LogRecorder()
    let viewModel = makeViewModel(logs: logs)
    await viewModel.send(.startTimerEvery(interval)).value
    #expect(viewModel.ticks == 0 && viewModel.runningTaskCount == 0)
    #expect(
      logs.messages(at: .error) == [
        "procedure for startTimerEvery(\(interval)) failed: "
          + "\(ProcedureError.timerIntervalNotPositive(interval))"
      ])
  }

  @Test func timer_ticks_on_the_injected_clock_without_drift() async {
    let viewModel = makeViewModel()
    viewModel.send(.startTimer)
    while clock.sleeperCount == 0 { await Task.yield() }
    #expect(viewModel.ticks == 0)
    await clock.advance(by: .seconds(1))
    while viewModel.ticks < 1 || clock.sleeperCount == 0 { await Task.yield() }
    await clock.advance(by: .milliseconds(2_500))  // t = 3.5 s: ticks at 2 s and 3 s
    while viewModel.ticks < 3 || clock.sleeperCount == 0 { await Task.yield() }
    await clock.advance(by: .milliseconds(500))  // t = 4 s: the fourth tick, on the second
    while viewModel.ticks < 4 || clock.sleeperCount == 0 { await Task.yield() }
    #expect(viewModel.ticks == 4)
  }

  @Test func stream_sends_every_element_in_order() async {
    let viewModel = makeViewModel()
    await viewModel.send(.stream([3, 1, 2])).value
    #expect(viewModel.received == [3, 1, 2])
  }

  @Test func merge_runs_procedures_at_once() async {
    let viewModel = makeViewModel()
    let merged = viewModel.send(.merged)
    await gate.waitForWaiters(1)
    await second.waitForWaiters(1)  // both wait together: they run concurrently
    second.open()
    while viewModel.received != [2] { await Task.yield() }
    gate.open()
    await merged.value
    #expect(viewModel.received == [2, 1])
  }

  @Test func sequence_runs_procedures_one_after_the_other() async {
    let viewModel = makeViewModel()
    let sequenced = viewModel.send(.sequenced)
    await gate.waitForWaiters(1)
    gate.open()
    await second.waitForWaiters(1)
    // NB: the second starts only once the first has ended.
    #expect(reports.all == ["first ended", "second started"])
    second.open()
    await sequenced.value
    #expect(viewModel.received == [1, 2])
  }

  /// Replacing the state object is observed on the view model; a send is not a read of it.
  @Test func replacingTheStateIsObservedAndSendingIsNotARead() async {
    let viewModel = makeViewModel()
    let changes = Reports()
    let fetch = withObservationTracking {
      viewModel.send(.fetch(1))  // reads no state: registers nothing to observe
    } onChange: {
      changes.append("send was observed")
    }
    withObservationTracking {
      _ = viewModel.state
    } onChange: {
      changes.append("state replaced")
    }
    viewModel.state = Ticker.State()
    #expect(changes.all == ["state replaced"])
    await fetch.value
  }
}
