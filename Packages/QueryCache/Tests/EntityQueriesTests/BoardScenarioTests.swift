import EntityTracking
import ReduxCore
import ReduxCoreTesting
import Testing

@testable import EntityQueries
@testable import QueryCache

/// A board app as it is wired: cards in an `EntityStore` of a ReduxCore store, persisted by a
/// reducer that drains them, with a search and a count per column cached in a `QueryClient`.
/// Moving, editing and deleting a card refetches exactly the queries whose answer it changes.
@MainActor @Suite(.timeLimit(.minutes(1))) struct BoardScenarioTests {
  let queries = CardQueries()
  let state = BoardState()
  let drained = CallRecorder<ChangeSet<Int>>()
  let invalidator: EntityQueryInvalidator<Card>
  let store: Store<BoardState, BoardAction>

  init() {
    invalidator = EntityQueryInvalidator(
      client: queries.client, tracking: state.cards,
      dependencies: [
        .queries(under: "search").reading(\.title),
        .queries(keyedBy: { [QueryKey("count", $0.columnID)] }).readingMembershipOnly(),
      ])
    store = Store(
      initialState: state,
      reducers: [
        boardReducer, invalidator.reducer(reading: \.cards), persistenceReducer(drained: drained),
      ])
  }

  /// Dispatches, waits for the cache, and reads every query.
  func run(_ action: BoardAction) async -> Answers {
    await store.dispatchWithOutcome(action)
    await invalidator.flush()
    return await answers()
  }

  struct Answers: Equatable {
    var searchA: [Int]
    var searchZeta: [Int]
    var counts: [Int]
  }

  func answers() async -> Answers {
    let cards = state.cards
    var counts: [Int] = []
    for column in 1...3 { counts.append(await queries.count(inColumn: column, of: cards).value!) }
    return Answers(
      searchA: await queries.search("a", in: cards).value!,
      searchZeta: await queries.search("zeta", in: cards).value!, counts: counts)
  }

  /// How many times each query was computed: search "a", search "zeta", count 1, 2, 3.
  var computations: [Int] {
    [
      QueryKey("search", "a"), QueryKey("search", "zeta"), QueryKey("count", 1),
      QueryKey("count", 2), QueryKey("count", 3),
    ].map(queries.computations(of:))
  }

  @Test func aCardMovedEditedOrDeletedRefetchesTheRightQueries() async {
    #expect(await answers() == Answers(searchA: [1, 2, 3], searchZeta: [], counts: [2, 1, 0]))
    #expect(computations == [1, 1, 1, 1, 1])

    // Moved: both columns' counts; no search (the title did not change), no other column.
    #expect(
      await run(.move(card: 1, toColumn: 3))
        == Answers(searchA: [1, 2, 3], searchZeta: [], counts: [1, 1, 1]))
    #expect(computations == [1, 1, 2, 1, 2])

    // Edited: every search; no count.
    #expect(
      await run(.retitle(card: 2, title: "zeta"))
        == Answers(searchA: [1, 2, 3], searchZeta: [2], counts: [1, 1, 1]))
    #expect(computations == [2, 2, 2, 1, 2])

    // Deleted: every search and its column's count.
    #expect(
      await run(.delete(card: 3))
        == Answers(searchA: [1, 2], searchZeta: [2], counts: [1, 0, 1]))
    #expect(computations == [3, 3, 2, 2, 2])

    // Persistence got every change, as if the invalidator were not there.
    #expect(drained.calls == [[.upsert(1)], [.upsert(2)], [.deletion(3)]])
  }

  /// A screen's observer refetches on its own when the invalidator invalidates its key.
  @Test func anObservingScreenRefetchesWhenItsQueryIsInvalidated() async {
    let state = state
    let observer = QueryObserver(
      client: queries.client, queryKey: QueryKey("count", 2), options: queries.options
    ) {
      await MainActor.run { state.cards.count { $0.columnID == 2 } }
    }
    await observer.fetch()
    let subscription = Task { await observer.subscribe() }
    await queries.client.cache.waitUntil {
      $0.invalidationStreamCount(queryKey: QueryKey("count", 2)) > 0
    }

    await store.dispatchWithOutcome(.move(card: 1, toColumn: 2))
    await invalidator.flush()
    await waitUntil { observer.box.data == 2 }

    subscription.cancel()
    await subscription.value
  }
}
