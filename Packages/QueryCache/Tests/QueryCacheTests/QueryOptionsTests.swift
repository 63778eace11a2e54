import InMemoryLogging
import Logging
import QueryCache
import ReduxCore
import ReduxCoreTesting
import Testing

/// Out-of-range options do not trap the app: they are clamped, and the client says so once.
@Suite(.timeLimit(.minutes(1))) struct QueryOptionsTests {
  @Test func inRangeOptionsAreKeptAsGivenWithNoAdjustment() {
    let options = QueryOptions(
      staleTime: .seconds(5), gcTime: .zero, retry: QueryRetry(count: 2),
      refetchInterval: .seconds(1))
    #expect(options.staleTime == .seconds(5) && options.gcTime == .zero)
    #expect(options.refetchInterval == .seconds(1) && options.retry.count == 2)
    #expect(options.adjustments.isEmpty)
  }

  @Test func negativeTimesAreZeroAndAPollingPeriodOfZeroOrLessTurnsPollingOff() {
    let options = QueryOptions(
      staleTime: .seconds(-1), gcTime: .seconds(-2), refetchInterval: .zero)
    #expect(options.staleTime == .zero && options.gcTime == .zero)
    #expect(options.refetchInterval == nil)
    #expect(
      options.adjustments == [
        "QueryOptions: staleTime -1.0 seconds is negative; using 0 seconds",
        "QueryOptions: gcTime -2.0 seconds is negative; using 0 seconds",
        "QueryOptions: refetchInterval 0.0 seconds would poll without pause; polling is off",
      ])
    #expect(QueryOptions(refetchInterval: .seconds(-1)).refetchInterval == nil)
  }

  @Test func aNegativeRetryCountIsNoRetryAndAShortMaximumIsTheInitialDelay() {
    let retry = QueryRetry(count: -1, initialDelay: .seconds(60))
    #expect(retry.count == 0)
    #expect(retry.maximumDelay == .seconds(60))
    #expect(
      retry.adjustments == [
        "Backoff: maximumDelay 30.0 seconds is shorter than initialDelay; using 60.0 seconds",
        "QueryRetry: count -1 is negative; using 0 (no retry)",
      ])
    #expect(QueryOptions(retry: retry).adjustments == retry.adjustments)
  }

  @Test func theClientLogsEachAdjustmentOnceHoweverOftenTheOptionsAreUsed() async throws {
    let handler = InMemoryLogHandler()
    let client = QueryClient(clock: ManualClock(), logger: Logger(label: "test") { _ in handler })
    let options = QueryOptions(staleTime: .seconds(-1))
    for _ in 1...3 {
      let fetched = await client.fetch(queryKey: "n", options: options, forceRefresh: true) { 7 }
      #expect(try fetched.result.get() == 7)
    }
    try await client.setQueryData("n", 8, options: options)
    let warnings = handler.entries.filter { $0.level == .warning }.map { "\($0.message)" }
    #expect(warnings == ["QueryOptions: staleTime -1.0 seconds is negative; using 0 seconds"])
  }
}
