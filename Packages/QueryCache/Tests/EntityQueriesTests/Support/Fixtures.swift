import EntityTracking
import QueryCache
import ReduxCoreTesting

/// A card on a board: its column, title and tags are what the queries read.
struct Card: Identifiable, Equatable, Sendable {
  let id: Int
  var columnID: Int
  var title: String
  var tags: [String] = []
}

extension EntityStore<Card> {
  /// Cards 1 and 2 in column 1 ("alpha", "beta"), card 3 in column 2 ("gamma").
  static var board: EntityStore<Card> {
    EntityStore([
      Card(id: 1, columnID: 1, title: "alpha", tags: ["red"]),
      Card(id: 2, columnID: 1, title: "beta", tags: ["red", "blue"]),
      Card(id: 3, columnID: 2, title: "gamma"),
    ])
  }
}

/// Derived queries over cards, cached in a `QueryClient` on a `ManualClock`, that count how
/// often each key was computed: a key served from the cache is not computed again.
final class CardQueries: Sendable {
  let clock = ManualClock()
  let client: QueryClient
  /// Fresh for a minute: within a test, a cached value is served from the cache until it is
  /// invalidated.
  let options = QueryOptions(staleTime: .seconds(60))
  private let computed = CallRecorder<QueryKey>()

  init() {
    client = QueryClient(clock: clock)
  }

  /// How many times `key` was computed.
  func computations(of key: QueryKey) -> Int {
    computed.calls.count { $0 == key }
  }

  /// The ids of the cards whose title contains `text`.
  func search(_ text: String, in cards: EntityStore<Card>) async -> QueryResult<[Int]> {
    await fetch(QueryKey("search", text)) { cards.filter { $0.title.contains(text) }.map(\.id) }
  }

  /// The number of cards in column `columnID`.
  func count(inColumn columnID: Int, of cards: EntityStore<Card>) async -> QueryResult<Int> {
    await fetch(QueryKey("count", columnID)) { cards.count { $0.columnID == columnID } }
  }

  /// The title of card `id`.
  func title(ofCard id: Int, in cards: EntityStore<Card>) async -> QueryResult<String?> {
    await fetch(QueryKey("card", id)) { cards[id]?.title }
  }

  /// The number of cards.
  func total(of cards: EntityStore<Card>) async -> QueryResult<Int> {
    await fetch("total") { cards.count }
  }

  /// Fetches `key` with `compute` as its query function, recording each computation.
  func fetch<Value: Sendable>(
    _ key: QueryKey, compute: @escaping @Sendable () -> Value
  ) async -> QueryResult<Value> {
    let computed = computed
    return await client.fetchResult(queryKey: key, options: options) {
      computed.record(key)
      return compute()
    }
  }

  /// Whether `key` holds a value fresh enough to be served without computing it.
  func isFresh(_ key: QueryKey, as type: (some Sendable).Type) -> Bool {
    client.freshQueryData(key, as: type, staleTime: options.staleTime) != nil
  }
}

/// A query function that waits until the test releases it: a fetch in flight.
final class HeldQuery<Value: Sendable>: Sendable {
  private let gate = Gate()
  private let started = CallRecorder<Void>()
  private let value: Value

  init(returning value: Value) {
    self.value = value
  }

  /// Suspends until the function was called.
  func waitUntilStarted() async { await started.waitForCalls(1) }

  /// Lets the function return.
  func release() { gate.open() }

  var function: @Sendable () async throws -> Value {
    { [self] in
      started.record()
      try await gate.wait()
      return value
    }
  }
}
