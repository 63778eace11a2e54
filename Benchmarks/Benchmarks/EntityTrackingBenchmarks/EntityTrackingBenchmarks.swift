import Benchmark
import EntityTracking
import Foundation
import OrderedCollections

/// The entity of perf-baselines.md §5: UUID id, a heap-allocated title, a sort index.
struct Card: Identifiable, Equatable, Sendable {
  let id: UUID
  var title: String
  var sortIndex: Int
}

let size = 100_000
/// Iteration benchmarks time this many passes over 100k entities, so that a figure is
/// milliseconds, not tens of microseconds at the mercy of the timer and the scheduler.
let passes = 20

func makeCards(_ count: Int) -> [Card] {
  (0..<count).map { Card(id: UUID(), title: "card number \($0) with a long title", sortIndex: $0) }
}

struct AppState {
  var cards: EntityStore<Card>
}

@inline(never)
func blackHole<T>(_ value: T) {}

// NB: iteration is measured through non-inlined functions, the way a renderer reads a store
// held in state, on a warm pass (one unmeasured pass first, for the array and the store alike).
// NB: every measured container is kept alive past `stopMeasurement()` (`blackHole` after it):
// Swift may end a value's lifetime at its last use, and destroying a 100k store (100k title
// releases, ~2.5 ms) inside the measured region was first mistaken for slow iteration.
@inline(never)
func sumOfCards(_ cards: [Card]) -> Int {
  var sum = 0
  for card in cards { sum &+= card.sortIndex &+ card.title.utf8.count }
  return sum
}

@inline(never)
func sumOfCards(_ store: EntityStore<Card>) -> Int {
  var sum = 0
  for card in store { sum &+= card.sortIndex &+ card.title.utf8.count }
  return sum
}

/// How many rounds of "modify 10 entities, drain" a drain benchmark times.
let drainRounds = 1_000

/// `drainRounds` rounds of 10 modifications (of `ids`, in turn) and one drain, reading every
/// upserted entity by id as persistence does; returns a checksum.
@inline(never)
func drainRepeatedly(_ store: inout EntityStore<Card>, ids: [UUID]) -> Int {
  var sum = 0
  for round in 0..<drainRounds {
    for offset in 0..<10 {
      store.modify(ids[(round * 10 + offset) % ids.count]) { $0.sortIndex &+= 1 }
    }
    for id in store.drainChanges().upserts { sum &+= store[id]?.sortIndex ?? 0 }
  }
  return sum
}

/// Each pair measures the same work on `OrderedDictionary` (the baseline) and on `EntityStore`,
/// in the same run; Scripts/bench.sh prints their ratios.
let benchmarks: @Sendable () -> Void = {
  let configuration = Benchmark.Configuration(
    metrics: [.wallClock, .mallocCountTotal],
    timeUnits: .microseconds,
    maxDuration: .seconds(10),
    maxIterations: 7
  )
  let cards = makeCards(size)
  let shuffledIDs = cards.map(\.id).shuffled()
  let deletedIDs = Array(shuffledIDs.prefix(1_000))

  Benchmark("lookup 100k ids: OrderedDictionary", configuration: configuration) { benchmark in
    let dictionary = OrderedDictionary(uniqueKeysWithValues: cards.map { ($0.id, $0) })
    benchmark.startMeasurement()
    var sum = 0
    for id in shuffledIDs { sum &+= dictionary[id]?.sortIndex ?? 0 }
    benchmark.stopMeasurement()
    blackHole(sum)
    blackHole(dictionary)
  }

  Benchmark("lookup 100k ids: EntityStore", configuration: configuration) { benchmark in
    let store = EntityStore(cards)
    benchmark.startMeasurement()
    var sum = 0
    for id in shuffledIDs { sum &+= store[id]?.sortIndex ?? 0 }
    benchmark.stopMeasurement()
    blackHole(sum)
    blackHole(store)
  }

  Benchmark("upsert 100k new: OrderedDictionary", configuration: configuration) { benchmark in
    var dictionary = OrderedDictionary<UUID, Card>()
    benchmark.startMeasurement()
    for card in cards { dictionary[card.id] = card }
    benchmark.stopMeasurement()
    blackHole(dictionary)
  }

  Benchmark("upsert 100k new: EntityStore", configuration: configuration) { benchmark in
    var store = EntityStore<Card>()
    benchmark.startMeasurement()
    for card in cards { store[card.id] = card }
    benchmark.stopMeasurement()
    blackHole(store)
  }

  Benchmark("delete 1000 of 100k: OrderedDictionary", configuration: configuration) { benchmark in
    var dictionary = OrderedDictionary(uniqueKeysWithValues: cards.map { ($0.id, $0) })
    benchmark.startMeasurement()
    for id in deletedIDs { dictionary.removeValue(forKey: id) }
    benchmark.stopMeasurement()
    blackHole(dictionary)
  }

  Benchmark("delete 1000 of 100k: EntityStore", configuration: configuration) { benchmark in
    var store = EntityStore(cards)
    benchmark.startMeasurement()
    for id in deletedIDs { store[id] = nil }
    benchmark.stopMeasurement()
    blackHole(store)
  }

  Benchmark("iterate 100k: Array", configuration: configuration) { benchmark in
    let array = cards
    benchmark.startMeasurement()
    var sum = 0
    for _ in 0..<passes { sum &+= sumOfCards(array) }
    benchmark.stopMeasurement()
    blackHole(sum)
    blackHole(array)
  }

  Benchmark("iterate 100k: EntityStore", configuration: configuration) { benchmark in
    let store = EntityStore(cards)
    benchmark.startMeasurement()
    var sum = 0
    for _ in 0..<passes { sum &+= sumOfCards(store) }
    benchmark.stopMeasurement()
    blackHole(sum)
    blackHole(store)
  }

  Benchmark("iterate 100k after 1000 deletes: EntityStore", configuration: configuration) {
    benchmark in
    var store = EntityStore(cards)
    for id in deletedIDs { store[id] = nil }
    benchmark.startMeasurement()
    var sum = 0
    for _ in 0..<passes { sum &+= sumOfCards(store) }
    benchmark.stopMeasurement()
    blackHole(sum)
    blackHole(store)
  }

  // NB: one drain of 10 changes takes well under a microsecond, below the timer's resolution, so
  // each figure is `drainRounds` rounds of 10 modifications and one drain; the two sizes do the
  // same work, and their ratio shows whether a drain depends on the store's size.
  Benchmark("drain 10 changes: EntityStore of 1k", configuration: configuration) { benchmark in
    var store = EntityStore(cards.prefix(1_000))
    let ids = cards.prefix(1_000).map(\.id)
    benchmark.startMeasurement()
    blackHole(drainRepeatedly(&store, ids: ids))
    benchmark.stopMeasurement()
    blackHole(store)
  }

  Benchmark("drain 10 changes: EntityStore of 100k", configuration: configuration) { benchmark in
    var store = EntityStore(cards)
    let ids = cards.prefix(1_000).map(\.id)
    benchmark.startMeasurement()
    blackHole(drainRepeatedly(&store, ids: ids))
    benchmark.stopMeasurement()
    blackHole(store)
  }

  Benchmark("copy 100k into state, mutate one: Array copy", configuration: configuration) {
    benchmark in
    let source = cards
    benchmark.startMeasurement()
    var copy = source
    copy[0].sortIndex += 1
    benchmark.stopMeasurement()
    blackHole(copy)
    blackHole(source)
  }

  Benchmark("copy 100k into state, mutate one: EntityStore (unique)", configuration: configuration)
  {
    benchmark in
    var state = AppState(cards: EntityStore(cards))
    let id = cards[0].id
    benchmark.startMeasurement()
    state.cards.modify(id) { $0.sortIndex += 1 }
    benchmark.stopMeasurement()
    blackHole(state)
  }
}
