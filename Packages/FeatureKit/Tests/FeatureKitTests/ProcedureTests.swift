import FeatureKit
import InMemoryLogging
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

  func makeViewModel(logs: InMemoryLogHandler? = nil) -> ViewModelOf<Ticker> {
    ViewModelOf<Ticker>(
      initialState: .init(),
      reducer: Ticker(clock: clock, gate: gate, second: second, reports: reports),
      clock: clock, logger: logs?.logger ?? .init(label: "test"))
  }

  @Test func taskSendsTheActionItReturnsAndAwaitingSendWaitsForIt() async {
    let viewModel = makeViewModel()
    await viewModel.send(.fetch(7)).value
    #expect(viewModel.received == [7])
    #expect(viewModel.runningTaskCount == 0)
  }

  @Test func errorsReachCatchWhichCanSendOrTheLogWithoutOne() async {
    let logs = InMemoryLogHandler()
    let viewModel = makeViewModel(logs: logs)
    await viewModel.send(.fetchFailing).value
    #expect(reports.all == ["caught offline"])
    #expect(viewModel.received == [-1])
    await viewModel.send(.fetchFailingUncaught).value
    #expect(logs.messages(at: .error) == ["procedure for fetchFailingUncaught failed: offline"])
  }

  @Test func aCancelledProcedureNeverReachesCatchAndCannotSend() async {
    var viewModel: ViewModelOf<Ticker>? = makeViewModel()
    let state = viewModel!.state
    let procedure = viewModel!.send(.waitThenSend)
    await clock.waitForSleepers()
    viewModel = nil  // the view model goes away: its procedures are cancelled
    await procedure.value
    #expect(reports.all == ["woke: cancelled"])  // the CancellationError it rethrew was not caught
    #expect(state.received.isEmpty)  // its send after cancellation was ignored
  }

  /// A period of zero would tick without pause: the timer does not run, and says why.
  @Test(arguments: [Duration.zero, .seconds(-1)])
  func aTimerWithoutAPositiveIntervalDoesNotRunAndIsLogged(interval: Duration) async {
    let logs = InMemoryLogHandler()
    let viewModel = makeViewModel(logs: logs)
    await viewModel.send(.startTimerEvery(interval)).value
    #expect(viewModel.ticks == 0 && viewModel.runningTaskCount == 0)
    #expect(
      logs.messages(at: .error) == [
        "procedure for startTimerEvery(\(interval)) failed: "
          + "\(ProcedureError.timerIntervalNotPositive(interval))"
      ])
  }

  @Test func timerTicksOnTheInjectedClockWithoutDrift() async {
    let viewModel = makeViewModel()
    viewModel.send(.startTimer)
    await clock.waitForSleepers()
    #expect(viewModel.ticks == 0)
    await clock.advance(by: .seconds(1))
    await waitUntil { viewModel.ticks >= 1 }
    await clock.waitForSleepers()
    await clock.advance(by: .milliseconds(2_500))  // t = 3.5 s: ticks at 2 s and 3 s
    await waitUntil { viewModel.ticks >= 3 }
    await clock.waitForSleepers()
    await clock.advance(by: .milliseconds(500))  // t = 4 s: the fourth tick, on the second
    await waitUntil { viewModel.ticks >= 4 }
    await clock.waitForSleepers()
    #expect(viewModel.ticks == 4)
  }

  @Test func streamSendsEveryElementInOrder() async {
    let viewModel = makeViewModel()
    await viewModel.send(.stream([3, 1, 2])).value
    #expect(viewModel.received == [3, 1, 2])
  }

  @Test func mergeRunsProceduresAtOnce() async {
    let viewModel = makeViewModel()
    let merged = viewModel.send(.merged)
    await gate.waitForWaiters(1)
    await second.waitForWaiters(1)  // both wait together: they run concurrently
    second.open()
    await waitUntil { viewModel.received == [2] }
    gate.open()
    await merged.value
    #expect(viewModel.received == [2, 1])
  }

  @Test func sequenceRunsProceduresOneAfterTheOther() async {
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

  /// A test waits for a view model's procedures, and for what they sent, by one call.
  @Test func waitUntilIdleWaitsForProceduresAndWhatTheySent() async {
    let viewModel = makeViewModel()
    viewModel.send(.merged)  // two procedures, each waiting for its gate before sending
    #expect(viewModel.runningTaskCount == 1)
    gate.open()
    second.open()
    await viewModel.waitUntilIdle()
    #expect(viewModel.runningTaskCount == 0)
    #expect(viewModel.received.sorted() == [1, 2])
  }

  @Test func anAdmittedProcedureRunsWhenItsPolicyAdmitsIt() async {
    let logs = InMemoryLogHandler()
    let viewModel = makeViewModel(logs: logs)
    viewModel.send(.search(1))
    await clock.advance(by: .milliseconds(60))
    viewModel.send(.search(2))
    await clock.advance(by: .milliseconds(60))  // 100 after the first, 60 after the second
    #expect(viewModel.received.isEmpty)
    await clock.advance(by: .milliseconds(40))
    await viewModel.waitUntilIdle()
    #expect(viewModel.received == [2])
    #expect(
      logs.messages(at: .debug) == [
        "procedure for search(1) did not run: superseded by a newer task with its id"
      ])
  }
}
