import InMemoryLogging
import Logging
import ReduxCoreTesting
import Testing

@testable import QueryCache

/// Every key starts with the empty key: invalidating or cancelling "everything" must be asked for
/// by name, never be the accident of an empty key.
@Suite(.timeLimit(.minutes(1))) struct InvalidationKeyTests {
  let clock = ManualClock()

  func client() -> (QueryClient, InMemoryLogHandler) {
    let handler = InMemoryLogHandler()
    return (QueryClient(clock: clock, logger: Logger(label: "test") { _ in handler }), handler)
  }

  @Test func anEmptyKeyInvalidatesNothingAndSaysSo() async throws {
    let (client, log) = client()
    try await client.setQueryData(["users", 1], "Alice")
    await client.invalidate(QueryKey([]))
    #expect(await client.getQueryData(["users", 1], as: String.self) == "Alice")
    #expect(log.entries.contains { $0.level == .warning && "\($0.message)".contains("empty key") })
  }

  @Test func anEmptyKeyCancelsNothingAndSaysSo() async {
    let (client, log) = client()
    await client.cancelQueries(QueryKey([]))
    #expect(log.entries.contains { $0.level == .warning && "\($0.message)".contains("empty key") })
  }

  @Test func invalidateAllClearsEveryKey() async throws {
    let (client, _) = client()
    try await client.setQueryData(["users", 1], "Alice")
    try await client.setQueryData("posts", 3)
    await client.invalidateAll()
    #expect(await client.getQueryData(["users", 1], as: String.self) == nil)
    #expect(await client.getQueryData("posts", as: Int.self) == nil)
  }
}

/// A query's value type is inferred from its function: a `try?` there caches `T?`, which a
/// reader asking for `T` would not find: the read says what the key holds.
@Suite(.timeLimit(.minutes(1))) struct QueryValueTypeTests {
  @Test func aReadAsAnotherTypeSaysWhatTheKeyHolds() async throws {
    let handler = InMemoryLogHandler()
    let client = QueryClient(
      clock: ManualClock(), logger: Logger(label: "test") { _ in handler })
    let fetched = await client.fetch(queryKey: "user") { try? await Self.name() }
    #expect(try fetched.result.get() == "Alice")
    #expect(await client.getQueryData("user", as: String.self) == nil)
    #expect(await client.getQueryData("user", as: String?.self) == .some("Alice"))
    let warnings = handler.entries.filter { $0.level == .warning }.map { "\($0.message)" }
    #expect(warnings.contains { $0.contains("as: String): the key holds Optional<String>") })
  }

  static func name() async throws -> String { "Alice" }
}
