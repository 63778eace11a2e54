import EntityTracking
import QueryCache
import Testing

@testable import EntityQueries

@Suite(.timeLimit(.minutes(1))) struct EntityQueryInvalidatorTests {
  let queries = CardQueries()

  func invalidator(
    _ dependencies: [QueryDependency<Card>], tracking cards: EntityStore<Card> = .board
  ) -> EntityQueryInvalidator<Card> {
    EntityQueryInvalidator(client: queries.client, tracking: cards, dependencies: dependencies)
  }

  @Test func aChangeInvalidatesExactlyTheQueriesThatReadIt() async throws {
    var cards = EntityStore<Card>.board
    let invalidator = invalidator([
      .query("total"),
      .query(QueryKey("card", 1), ids: [1]),
      .query(QueryKey("card", 2), ids: [2]),
    ])
    _ = await queries.total(of: cards)
    _ = await queries.title(ofCard: 1, in: cards)
    _ = await queries.title(ofCard: 2, in: cards)

    cards.modify(1) { $0.title = "alpha!" }
    let update = await invalidator.apply(cards.drainChanges(), in: cards)

    #expect(update.invalidatedKeys == ["total", QueryKey("card", 1)])
    #expect(update.invalidatedPrefixes.isEmpty && update.patchedKeys.isEmpty)
    #expect(update.changedEntityCount == 1)
    #expect(!queries.isFresh("total", as: Int.self))
    #expect(!queries.isFresh(QueryKey("card", 1), as: String?.self))
    #expect(queries.isFresh(QueryKey("card", 2), as: String?.self))
    #expect(try await queries.title(ofCard: 1, in: cards).result.get() == "alpha!")
    #expect(queries.computations(of: QueryKey("card", 1)) == 2)
  }

  @Test func untouchedQueriesStayFreshAndAreServedFromTheCache() async throws {
    var cards = EntityStore<Card>.board
    let invalidator = invalidator([
      .query(QueryKey("card", 1), ids: [1]), .query(QueryKey("card", 2), ids: [2]),
    ])
    _ = await queries.title(ofCard: 1, in: cards)
    _ = await queries.title(ofCard: 2, in: cards)

    cards.modify(1) { $0.title = "changed" }
    await invalidator.apply(cards.drainChanges(), in: cards)

    let untouched = await queries.title(ofCard: 2, in: cards)
    #expect(untouched.source == .cache && untouched.isFresh)
    #expect(try untouched.result.get() == "beta")
    #expect(queries.computations(of: QueryKey("card", 2)) == 1)
  }

  @Test func idsNarrowAQueryToItsEntities() async {
    var cards = EntityStore<Card>.board
    let invalidator = invalidator([.query("firstTwo", ids: [1, 2])])
    _ = await queries.fetch("firstTwo") { 2 }

    cards.modify(3) { $0.title = "not read" }
    cards[4] = Card(id: 4, columnID: 1, title: "not read either")
    #expect(await invalidator.apply(cards.drainChanges(), in: cards).isEmpty)
    #expect(queries.isFresh("firstTwo", as: Int.self))

    cards.modify(2) { $0.title = "read" }
    #expect(
      await invalidator.apply(cards.drainChanges(), in: cards).invalidatedKeys == ["firstTwo"])
  }

  /// A card leaving column 1 changes a query over column 1 as much as one arriving: the
  /// predicate is asked of the old value and of the new one.
  @Test func aPredicateTouchesTheQueryWhenTheOldOrTheNewValueSatisfiesIt() async {
    var cards = EntityStore<Card>.board
    let invalidator = invalidator([.query("column1") { $0.columnID == 1 }])
    _ = await queries.fetch("column1") { 2 }

    cards.modify(3) { $0.title = "still in column 2" }
    #expect(await invalidator.apply(cards.drainChanges(), in: cards).isEmpty)
    #expect(queries.isFresh("column1", as: Int.self))

    cards.modify(1) { $0.columnID = 2 }  // leaves column 1: only the old value satisfies it
    #expect(await invalidator.apply(cards.drainChanges(), in: cards).invalidatedKeys == ["column1"])

    _ = await queries.fetch("column1") { 1 }
    cards.modify(3) { $0.columnID = 1 }  // arrives: only the new value satisfies it
    #expect(await invalidator.apply(cards.drainChanges(), in: cards).invalidatedKeys == ["column1"])
  }

  @Test func aDeletionTouchesTheQueriesThatReadTheDeletedValue() async {
    var cards = EntityStore<Card>.board
    let invalidator = invalidator([
      .queries(keyedBy: { [QueryKey("count", $0.columnID)] }),
      .query(QueryKey("card", 3), ids: [3]),
    ])
    _ = await queries.count(inColumn: 1, of: cards)
    _ = await queries.count(inColumn: 2, of: cards)
    _ = await queries.title(ofCard: 3, in: cards)

    cards[1] = nil
    let update = await invalidator.apply(cards.drainChanges(), in: cards)

    #expect(update.invalidatedKeys == [QueryKey("count", 1)])
    #expect(queries.isFresh(QueryKey("count", 2), as: Int.self))
    #expect(queries.isFresh(QueryKey("card", 3), as: String?.self))
    #expect(await queries.count(inColumn: 1, of: cards).value == 1)
  }

  @Test func aKeyPrefixFamilyIsInvalidatedAsAWhole() async {
    var cards = EntityStore<Card>.board
    let invalidator = invalidator([.queries(under: "search")])
    _ = await queries.search("a", in: cards)
    _ = await queries.search("gam", in: cards)
    _ = await queries.total(of: cards)

    cards.modify(2) { $0.title = "delta" }
    let update = await invalidator.apply(cards.drainChanges(), in: cards)

    #expect(update.invalidatedPrefixes == ["search"] && update.invalidatedKeys.isEmpty)
    #expect(!queries.isFresh(QueryKey("search", "a"), as: [Int].self))
    #expect(!queries.isFresh(QueryKey("search", "gam"), as: [Int].self))
    #expect(queries.isFresh("total", as: Int.self))
    #expect(await queries.search("a", in: cards).value == [1, 2, 3])
  }

  @Test func aFamilyNarrowedByAPredicateIgnoresTheEntitiesItLeavesOut() async {
    var cards = EntityStore<Card>.board
    let invalidator = invalidator([.queries(under: "search") { !$0.tags.contains("hidden") }])
    _ = await queries.search("a", in: cards)

    cards[9] = Card(id: 9, columnID: 1, title: "a hidden card", tags: ["hidden"])
    #expect(await invalidator.apply(cards.drainChanges(), in: cards).isEmpty)
    #expect(queries.isFresh(QueryKey("search", "a"), as: [Int].self))

    cards.modify(9) { $0.tags = [] }  // now shown: the new value satisfies the predicate
    #expect(
      await invalidator.apply(cards.drainChanges(), in: cards).invalidatedPrefixes == ["search"])
  }

  /// A card that changes column touches both columns' counts; one whose title changes touches
  /// no count, since the counts read only the column.
  @Test func readingNarrowsAnUpdateToWhatTheQueriesRead() async {
    var cards = EntityStore<Card>.board
    let invalidator = invalidator([
      .queries(keyedBy: { [QueryKey("count", $0.columnID)] }).reading(\.columnID)
    ])
    for column in [1, 2, 3] { _ = await queries.count(inColumn: column, of: cards) }

    cards.modify(1) { $0.title = "renamed" }
    #expect(await invalidator.apply(cards.drainChanges(), in: cards).isEmpty)

    cards.modify(1) { $0.columnID = 2 }
    let update = await invalidator.apply(cards.drainChanges(), in: cards)
    #expect(update.invalidatedKeys == [QueryKey("count", 1), QueryKey("count", 2)])
    #expect(queries.isFresh(QueryKey("count", 3), as: Int.self))
  }

  @Test func keysDerivedFromAValueReachEveryKeyOfTheOldAndTheNewValue() async {
    var cards = EntityStore<Card>.board
    let invalidator = invalidator([
      .queries(keyedBy: { card in card.tags.map { QueryKey("tag", $0) } }).reading(\.tags)
    ])
    cards.modify(2) { $0.tags = ["blue", "green"] }
    let update = await invalidator.apply(cards.drainChanges(), in: cards)
    #expect(
      update.invalidatedKeys == [
        QueryKey("tag", "red"), QueryKey("tag", "blue"), QueryKey("tag", "green"),
      ])
  }

  /// A per-tag count reads which cards carry the tag, not the tags themselves: the tag the card
  /// keeps is not touched.
  @Test func membershipOnlyTouchesTheKeysAnEntityJoinedOrLeft() async {
    var cards = EntityStore<Card>.board
    let invalidator = invalidator([
      .queries(keyedBy: { card in card.tags.map { QueryKey("tag", $0) } }).readingMembershipOnly()
    ])
    cards.modify(2) { $0.tags = ["blue", "green"] }
    let update = await invalidator.apply(cards.drainChanges(), in: cards)
    #expect(update.invalidatedKeys == [QueryKey("tag", "red"), QueryKey("tag", "green")])

    cards.modify(2) { $0.title = "retitled" }
    #expect(await invalidator.apply(cards.drainChanges(), in: cards).isEmpty)
  }

  /// Without a drain, the store's `changes` names the same ids again after the next action:
  /// a value recorded already is no change.
  @Test func aChangeSetReadAgainWithoutADrainChangesNothing() async {
    var cards = EntityStore<Card>.board
    let invalidator = invalidator([.query("total")])
    cards.modify(1) { $0.title = "once" }
    #expect(await invalidator.apply(cards.changes, in: cards).invalidatedKeys == ["total"])
    _ = await queries.total(of: cards)

    let again = await invalidator.apply(cards.changes, in: cards)
    #expect(again == EntityQueryUpdate())
    #expect(queries.isFresh("total", as: Int.self))
  }

  @Test func aValueChangedAndChangedBackBetweenRecordingsIsNoChange() async {
    var cards = EntityStore<Card>.board
    let invalidator = invalidator([.query("total")])
    cards.modify(1) { $0.title = "draft" }
    cards.modify(1) { $0.title = "alpha" }
    #expect(cards.changes.count == 1)
    #expect(await invalidator.apply(cards.drainChanges(), in: cards) == EntityQueryUpdate())
  }

  @Test func aChangeNoQueryReadsIsCountedAndReachesNoQuery() async {
    var cards = EntityStore<Card>.board
    let invalidator = invalidator([.query(QueryKey("card", 1), ids: [1])])
    cards.modify(2) { $0.title = "unread" }
    let update = await invalidator.apply(cards.drainChanges(), in: cards)
    #expect(update.changedEntityCount == 1 && update.isEmpty)
    #expect(invalidator.pendingUpdateCount == 0)
  }

  @Test func aHydrationTheStoreDidNotRecordIsFoundByComparingEverything() async {
    var cards = EntityStore<Card>.board
    let invalidator = invalidator([.queries(keyedBy: { [QueryKey("count", $0.columnID)] })])
    _ = await queries.count(inColumn: 1, of: cards)
    _ = await queries.count(inColumn: 2, of: cards)
    _ = await queries.count(inColumn: 3, of: cards)

    let loaded = EntityStore([
      Card(id: 3, columnID: 3, title: "gamma"),
      Card(id: 2, columnID: 1, title: "beta", tags: ["red", "blue"]),
    ])
    cards.merge(from: loaded) { _, incoming in incoming }
    cards.resetChanges()
    cards.remove(ids: [1])
    cards.resetChanges()
    #expect(!cards.hasChanges)

    invalidator.recordAllDifferences(in: cards)
    await invalidator.flush()

    #expect(!queries.isFresh(QueryKey("count", 1), as: Int.self))  // card 1 deleted
    #expect(!queries.isFresh(QueryKey("count", 2), as: Int.self))  // card 3 moved out
    #expect(!queries.isFresh(QueryKey("count", 3), as: Int.self))  // and in
  }

  @Test func recordedChangesReachTheCacheByFlush() async {
    var cards = EntityStore<Card>.board
    let invalidator = invalidator([.query("total")])
    _ = await queries.total(of: cards)

    cards[4] = Card(id: 4, columnID: 1, title: "new")
    invalidator.record(cards.drainChanges(), in: cards)
    await invalidator.flush()

    #expect(invalidator.pendingUpdateCount == 0)
    #expect(!queries.isFresh("total", as: Int.self))
    #expect(await queries.total(of: cards).value == 4)
  }

  /// Updates reach the cache in recording order, each in one step: two recordings of the same
  /// key, flushed together, leave what the later one says.
  @Test func updatesReachTheCacheInRecordingOrder() async throws {
    var cards = EntityStore<Card>.board
    let invalidator = invalidator([
      .patch("titles", as: [String].self) { titles, change in
        titles.removeAll { $0 == change.oldValue?.title }
        if let title = change.newValue?.title { titles.append(title) }
      }
    ])
    try await queries.client.setQueryData("titles", ["alpha", "beta", "gamma"])
    cards.modify(1) { $0.title = "one" }
    invalidator.record(cards.drainChanges(), in: cards)
    cards.modify(1) { $0.title = "two" }
    invalidator.record(cards.drainChanges(), in: cards)
    await invalidator.flush()
    #expect(
      await queries.client.getQueryData("titles", as: [String].self) == ["beta", "gamma", "two"])
  }
}
