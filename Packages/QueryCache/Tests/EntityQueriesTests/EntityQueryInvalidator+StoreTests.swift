import EntityTracking
import QueryCache
import ReduxCore
import ReduxCoreTesting
import Testing

@testable import EntityQueries

/// The invalidator in a ReduxCore store's reducers: it reads the changes persistence drains
/// after it, or drains a store nothing else does.
@MainActor @Suite(.timeLimit(.minutes(1))) struct EntityQueryInvalidatorStoreTests {
  let queries = CardQueries()

  @Test func theReadingReducerLeavesEveryChangeToTheDrainAfterIt() async {
    let state = BoardState()
    let invalidator = EntityQueryInvalidator(
      client: queries.client, tracking: state.cards, dependencies: [.query("total")])
    let drained = CallRecorder<ChangeSet<Int>>()
    let store = Store(
      initialState: state,
      reducers: [
        boardReducer, invalidator.reducer(reading: \.cards), persistenceReducer(drained: drained),
      ])
    _ = await queries.total(of: state.cards)

    await store.dispatchWithOutcome(.add(Card(id: 4, columnID: 1, title: "new")))
    await store.dispatchWithOutcome(.retitle(card: 1, title: "renamed"))
    await store.dispatchWithOutcome(.move(card: 1, toColumn: 1))  // no change: nothing drained
    await invalidator.flush()

    #expect(drained.calls == [[.upsert(4)], [.upsert(1)]])
    #expect(!queries.isFresh("total", as: Int.self))
    #expect(await queries.total(of: state.cards).value == 4)
  }

  /// Put after the drain, the reducer would find nothing: the order of the reducers matters.
  @Test func aReadingReducerAfterTheDrainSeesNoChange() async {
    let state = BoardState()
    let invalidator = EntityQueryInvalidator(
      client: queries.client, tracking: state.cards, dependencies: [.query("total")])
    let store = Store(
      initialState: state,
      reducers: [
        boardReducer, persistenceReducer(drained: CallRecorder()),
        invalidator.reducer(reading: \.cards),
      ])
    _ = await queries.total(of: state.cards)
    await store.dispatchWithOutcome(.add(Card(id: 4, columnID: 1, title: "new")))
    await invalidator.flush()
    #expect(queries.isFresh("total", as: Int.self))
  }

  @Test func theDrainingReducerTakesTheChangesOfAStoreNothingElseDrains() async {
    let state = BoardState()
    let invalidator = EntityQueryInvalidator(
      client: queries.client, tracking: state.cards, dependencies: [.query("total")])
    let logs = LogRecorder<BoardState, BoardAction>()
    let store = Store(
      initialState: state, reducers: [boardReducer, invalidator.reducer(draining: \.cards)],
      onLog: logs.onLog)
    _ = await queries.total(of: state.cards)

    await store.dispatchWithOutcome(.delete(card: 2))
    await invalidator.flush()

    #expect(!state.cards.hasChanges)
    #expect(logs.reducerEntries.map(\.id).contains("entity-queries"))
    #expect(await queries.total(of: state.cards).value == 2)
  }

  /// Without a drain, the store's changes grow from action to action; each id already recorded
  /// with its value changes nothing again.
  @Test func aReadingReducerWithoutADrainInvalidatesOncePerChange() async {
    let state = BoardState()
    let invalidator = EntityQueryInvalidator(
      client: queries.client, tracking: state.cards,
      dependencies: [.query(QueryKey("card", 1), ids: [1])])
    let store = Store(
      initialState: state, reducers: [boardReducer, invalidator.reducer(reading: \.cards)])

    await store.dispatchWithOutcome(.retitle(card: 1, title: "renamed"))
    await invalidator.flush()
    _ = await queries.title(ofCard: 1, in: state.cards)
    await store.dispatchWithOutcome(.retitle(card: 2, title: "other"))
    await invalidator.flush()

    #expect(state.cards.changes.upserts == [1, 2])
    #expect(queries.isFresh(QueryKey("card", 1), as: String?.self))
  }
}
