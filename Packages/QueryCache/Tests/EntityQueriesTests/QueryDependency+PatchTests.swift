import EntityTracking
import InMemoryLogging
import Logging
import QueryCache
import ReduxCoreTesting
import Testing

@testable import EntityQueries

/// A patch keeps a cached value in step with the changes instead of invalidating it, and
/// invalidates it instead wherever a patch could leave it wrong.
@Suite(.timeLimit(.minutes(1))) struct QueryDependencyPatchTests {
  let queries = CardQueries()
  static let column1Count = QueryKey("count", 1)

  /// Counts the cards of column 1, patched: only a change of column reaches the patch.
  func countingInvalidator(
    tracking cards: EntityStore<Card> = .board, logger: Logger? = nil
  ) -> EntityQueryInvalidator<Card> {
    EntityQueryInvalidator(
      client: queries.client, tracking: cards,
      dependencies: [
        .patch(Self.column1Count, as: Int.self, where: { $0.columnID == 1 }) { count, change in
          count += change.countChange { $0.columnID == 1 }
        }
        .reading(\.columnID)
      ],
      logger: logger)
  }

  @Test func aPatchFoldsEachChangeIntoTheCachedValue() async throws {
    var cards = EntityStore<Card>.board
    let invalidator = countingInvalidator()
    #expect(await queries.count(inColumn: 1, of: cards).value == 2)

    // (change, count after it, whether the patch ran)
    cards[4] = Card(id: 4, columnID: 1, title: "new")
    #expect(
      await invalidator.apply(cards.drainChanges(), in: cards).patchedKeys == [Self.column1Count])
    #expect(await queries.count(inColumn: 1, of: cards).value == 3)
    cards.modify(1) { $0.columnID = 2 }
    await invalidator.apply(cards.drainChanges(), in: cards)
    #expect(await queries.count(inColumn: 1, of: cards).value == 2)
    cards.modify(2) { $0.title = "edited" }
    #expect(await invalidator.apply(cards.drainChanges(), in: cards).isEmpty)
    cards[2] = nil
    cards[3] = nil  // in column 2: not counted
    await invalidator.apply(cards.drainChanges(), in: cards)

    let patched = await queries.count(inColumn: 1, of: cards)
    #expect(try patched.result.get() == 1)
    #expect(patched.source == .cache && patched.isFresh)
    #expect(queries.computations(of: Self.column1Count) == 1)
  }

  @Test func everyChangeOfAChangeSetReachesThePatchInOneStep() async throws {
    var cards = EntityStore<Card>.board
    let invalidator = countingInvalidator()
    try await queries.client.setQueryData(Self.column1Count, 2)
    cards[4] = Card(id: 4, columnID: 1, title: "new")
    cards[5] = Card(id: 5, columnID: 1, title: "newer")
    cards[1] = nil
    let update = await invalidator.apply(cards.drainChanges(), in: cards)
    #expect(update.patchedKeys == [Self.column1Count] && update.changedEntityCount == 3)
    #expect(await queries.client.getQueryData(Self.column1Count, as: Int.self) == 3)
  }

  /// A patch reflects a local change; it is not a fetch: a value stale before it is stale after.
  @Test func aPatchedValueKeepsItsAge() async {
    var cards = EntityStore<Card>.board
    let invalidator = countingInvalidator()
    _ = await queries.count(inColumn: 1, of: cards)
    await queries.clock.advance(by: .seconds(59))
    cards[4] = Card(id: 4, columnID: 1, title: "new")
    await invalidator.apply(cards.drainChanges(), in: cards)
    #expect(queries.isFresh(Self.column1Count, as: Int.self))
    await queries.clock.advance(by: .seconds(1))
    #expect(!queries.isFresh(Self.column1Count, as: Int.self))
  }

  @Test func aKeyWithNothingCachedIsLeftToItsNextFetch() async {
    var cards = EntityStore<Card>.board
    let invalidator = countingInvalidator()
    cards[4] = Card(id: 4, columnID: 1, title: "new")
    let update = await invalidator.apply(cards.drainChanges(), in: cards)
    #expect(update.isEmpty && update.errors.isEmpty)
    #expect(await queries.count(inColumn: 1, of: cards).value == 3)
  }

  /// The fetch in flight may have counted the cards before the change: its result must not
  /// be cached over the change.
  @Test func aPatchOverAFetchInFlightInvalidatesTheKeyInstead() async throws {
    var cards = EntityStore<Card>.board
    let invalidator = countingInvalidator()
    let held = HeldQuery(returning: 2)
    let client = queries.client
    let fetch = Task { await client.fetch(queryKey: Self.column1Count, queryFn: held.function) }
    await held.waitUntilStarted()

    cards[4] = Card(id: 4, columnID: 1, title: "new")
    let update = await invalidator.apply(cards.drainChanges(), in: cards)
    held.release()

    #expect(update.invalidatedKeys == [Self.column1Count] && update.patchedKeys.isEmpty)
    #expect(try await fetch.value.result.get() == 2)  // its caller gets it…
    #expect(await client.getQueryData(Self.column1Count, as: Int.self) == nil)  // …the cache not
  }

  @Test func aPatchOfAKeyHoldingAnotherTypeInvalidatesItAndSaysSo() async throws {
    var cards = EntityStore<Card>.board
    let log = InMemoryLogHandler()
    let invalidator = countingInvalidator(logger: Logger(label: "test") { _ in log })
    try await queries.client.setQueryData(Self.column1Count, "two")

    cards[4] = Card(id: 4, columnID: 1, title: "new")
    let update = await invalidator.apply(cards.drainChanges(), in: cards)

    let mismatch = QueryError.typeMismatch(
      key: Self.column1Count, expected: "Int", stored: "String")
    #expect(update.errors == [mismatch])
    #expect(update.invalidatedKeys == [Self.column1Count] && update.patchedKeys.isEmpty)
    #expect(await queries.client.getQueryData(Self.column1Count, as: String.self) == nil)
    #expect(
      log.entries.contains { $0.level == .warning && "\($0.message)".contains("\(mismatch)") })
  }

  @Test func aKeyAlsoInvalidatedIsNotPatched() async throws {
    var cards = EntityStore<Card>.board
    let invalidator = EntityQueryInvalidator(
      client: queries.client, tracking: cards,
      dependencies: [
        .queries(under: "count"),
        .patch(Self.column1Count, as: Int.self) { count, _ in count += 100 },
      ])
    try await queries.client.setQueryData(Self.column1Count, 2)
    cards[4] = Card(id: 4, columnID: 1, title: "new")
    let update = await invalidator.apply(cards.drainChanges(), in: cards)
    #expect(update.invalidatedPrefixes == ["count"] && update.patchedKeys.isEmpty)
    #expect(await queries.client.getQueryData(Self.column1Count, as: Int.self) == nil)
  }

  @MainActor @Test func anObserverShowsThePatchedValue() async {
    var cards = EntityStore<Card>.board
    let invalidator = countingInvalidator()
    let snapshot = cards
    let observer = QueryObserver(
      client: queries.client, queryKey: Self.column1Count, options: queries.options
    ) { snapshot.count { $0.columnID == 1 } }
    await observer.fetch()
    #expect(observer.box.data == 2)

    cards[4] = Card(id: 4, columnID: 1, title: "new")
    await invalidator.apply(cards.drainChanges(), in: cards)
    await waitUntil { observer.box.data == 3 }
  }
}
