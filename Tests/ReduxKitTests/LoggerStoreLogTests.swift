import InMemoryLogging
import Logging
import ReduxKit
import Testing

@Suite struct LoggerStoreLogTests {
  typealias Log = Store<TallyState, TallyAction>.Log

  static let took = Duration.milliseconds(3)
  static let tookText = "\(took)"

  static let table: [(Log, Captured)] = [
    (
      .middleware("guard", .add(2), took, .success(true)),
      Captured(
        .trace, "middleware 'guard' completed 'add'",
        ["middleware": "guard", "action": "add", "duration": tookText])
    ),
    (
      .middleware("guard", .add(2), took, .success(false)),
      Captured(
        .warning, "middleware 'guard' did not succeed for 'add'",
        ["middleware": "guard", "action": "add", "duration": tookText])
    ),
    (
      .middleware("guard", .fail, took, .failure(Boom())),
      Captured(
        .warning, "middleware 'guard' threw during 'fail'",
        ["middleware": "guard", "action": "fail", "duration": tookText], error: "boom")
    ),
    (
      .reducer("tally", .add(2), took, true),
      Captured(
        .trace, "reducer 'tally' completed 'add'",
        ["reducer": "tally", "action": "add", "duration": tookText])
    ),
    (
      .reducer("tally", .add(2), took, false),
      Captured(
        .warning, "reducer 'tally' did not succeed for 'add'",
        ["reducer": "tally", "action": "add", "duration": tookText])
    ),
    (
      .resolver("recover", .fail, took, true, Boom()),
      Captured(
        .trace, "resolver 'recover' completed 'fail'",
        ["resolver": "recover", "action": "fail", "duration": tookText], error: "boom")
    ),
    (
      .resolver("recover", .fail, took, false, Boom()),
      Captured(
        .warning, "resolver 'recover' did not succeed for 'fail'",
        ["resolver": "recover", "action": "fail", "duration": tookText], error: "boom")
    ),
    (
      .store(.refused(.add(1), reason: .queueFull(capacity: 4))),
      Captured(
        .warning, "refused 'add': queue full: 4 actions already pending",
        ["action": "add", "reason": "queue full: 4 actions already pending"])
    ),
    (
      .store(.discarded(.add(1), reason: .shutdown)),
      Captured(
        .warning, "discarded 'add': store shut down",
        ["action": "add", "reason": "store shut down"])
    ),
    (
      .store(.unresolvedError(Boom(), action: .fail, origin: .middleware("guard"))),
      Captured(
        .error, "unresolved error from middleware(\"guard\") during 'fail': boom",
        ["action": "fail", "origin": "middleware(\"guard\")"], error: "boom")
    ),
    (
      .store(.taskRefused(.add(1), origin: .middleware("guard"), reason: .shutdown)),
      Captured(
        .warning, "task of middleware(\"guard\") during 'add' refused: shut down",
        ["action": "add", "origin": "middleware(\"guard\")", "reason": "shut down"])
    ),
    (
      .store(.shutdown(discarded: 0)),
      Captured(.debug, "shut down, 0 queued action(s) discarded", ["discarded": "0"])
    ),
    (
      .store(.shutdown(discarded: 2)),
      Captured(.warning, "shut down, 2 queued action(s) discarded", ["discarded": "2"])
    ),
  ]

  @Test(arguments: table)
  func mapsEachEntryToALevelAMessageAndMetadata(entry: Log, expected: Captured) {
    let (logger, handler) = capturingLogger()
    logger.log(entry)
    #expect(handler.captured == [expected])
  }

  @Test func theLoggersLevelFiltersTimings() {
    let (logger, handler) = capturingLogger(level: .info)
    logger.log(Log.reducer("tally", .add(2), Self.took, true))
    logger.log(Log.store(.shutdown(discarded: 0)))
    logger.log(Log.reducer("tally", .add(2), Self.took, false))
    #expect(handler.captured.map(\.level) == [.warning])
  }

  @MainActor
  @Test func aStoreReportsThroughTheLoggerPassedAsItsOnLog() async throws {
    let (logger, handler) = capturingLogger()
    let store = Store(
      initialState: TallyState(), middlewares: [failing], reducers: [tally], onLog: logger.log)
    _ = await store.dispatchWithResult(.fail)
    _ = await store.dispatchWithResult(.add(2))
    store.shutdown()
    #expect(throws: DispatchError.shutdown) { try store.tryDispatch(.add(1)) }

    let captured = handler.captured
    try #require(captured.count == 5)
    #expect(captured[0].level == .warning)
    #expect(captured[0].message == "middleware 'guard' threw during 'fail'")
    #expect(captured[0].error == "boom")
    #expect(
      captured[1]
        == Captured(
          .error, "unresolved error from middleware(\"guard\") during 'fail': boom",
          ["action": "fail", "origin": "middleware(\"guard\")"], error: "boom"))
    #expect(captured[2].message == "reducer 'tally' completed 'add'")
    #expect(captured[2].level == .trace)
    #expect(captured[2].metadata["duration"] != nil)
    #expect(
      captured[3]
        == Captured(.debug, "shut down, 0 queued action(s) discarded", ["discarded": "0"]))
    #expect(
      captured[4]
        == Captured(
          .warning, "refused 'add': store shut down",
          ["action": "add", "reason": "store shut down"]
        ))
  }
}
