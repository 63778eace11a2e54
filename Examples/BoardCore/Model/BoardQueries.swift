import Foundation
import Logging
import ReduxKit

/// The board's derived data, cached by key in a `QueryClient`: search results and statistics.
/// Each is computed from a snapshot of the cards (copy-on-write: no copy is made) and served
/// from the cache while fresh; the entity changes of every action invalidate exactly the
/// queries that read them (EntityQueries).
@MainActor
final class BoardQueries {
  let client: QueryClient
  let options = QueryOptions(staleTime: .seconds(60))
  private let cardQueries: EntityQueryInvalidator<Card>
  private let columnQueries: EntityQueryInvalidator<Column>

  /// - Parameters:
  ///   - state: The board whose entities the queries read.
  ///   - client: The cache (with `board --server`, the one the server's board is kept in too).
  ///   - logger: Where invalidation problems go.
  init(state: BoardState, client: QueryClient, logger: Logger) {
    self.client = client
    cardQueries = EntityQueryInvalidator(
      client: client, tracking: state.cards,
      dependencies: [
        .queries(under: "search").reading { [$0.title, $0.notes] + $0.tags },
        .query("stats").reading { [String($0.columnID)] + $0.tags },
      ], logger: logger)
    columnQueries = EntityQueryInvalidator(
      client: client, tracking: state.columns,
      dependencies: [.query("stats").reading(\.name), .queries(under: "search")],
      logger: logger)
  }

  /// The reducers that hand each action's entity changes to the invalidation.
  var reducers: [AnyReducer<BoardState, BoardAction>] {
    // NB: another board's changes are applied without being recorded (they are not to be
    // saved again): they reach the invalidation from the action.
    let remote = AnyReducer<BoardState, BoardAction>(id: "remote-queries") {
      [cardQueries, columnQueries] context in
      defer { context.complete() }
      switch context.action {
      case .remoteCards(let changes): cardQueries.record(changes.changeSet, in: context.state.cards)
      case .remoteColumns(let changes):
        columnQueries.record(changes.changeSet, in: context.state.columns)
      default: break
      }
    }
    return [
      cardQueries.reducer(reading: \.cards), columnQueries.reducer(reading: \.columns), remote,
    ]
  }

  /// The cards whose title, notes or tags contain `text`, without case, in board order.
  func search(_ text: String, in cards: EntityStore<Card>) async -> [Card] {
    let needle = text.lowercased()
    return await value(QueryKey("search", needle)) { Self.search(needle, in: cards) }
  }

  /// Cards per column and per tag.
  func stats(of cards: EntityStore<Card>, columns: EntityStore<Column>) async -> BoardStats {
    await value(QueryKey("stats")) { BoardStats(cards: cards, columns: columns) }
  }

  /// The cached value when fresh; otherwise computed again (a stale one is never shown: the
  /// board is local, so the fresh value is at hand).
  private func value<Value: Sendable>(
    _ key: QueryKey, compute: @escaping @Sendable () -> Value
  ) async -> Value {
    // NB: the invalidations of the changes recorded so far reach the cache first.
    await cardQueries.flush()
    await columnQueries.flush()
    let (isFresh, result) = await client.fetch(queryKey: key, options: options) { compute() }
    if isFresh, case .success(let value) = result { return value }
    let refreshed = await client.fetch(queryKey: key, options: options, forceRefresh: true) {
      compute()
    }
    // NB: the computation cannot fail; a failure would be a type clash on the key.
    guard case .success(let value) = refreshed.result else { return compute() }
    return value
  }

  nonisolated static func search(_ needle: String, in cards: EntityStore<Card>) -> [Card] {
    cards.filter { card in
      card.title.lowercased().contains(needle) || card.notes.lowercased().contains(needle)
        || card.tags.contains { $0.contains(needle) }
    }
  }
}

/// How many cards each column and each tag holds.
struct BoardStats: Equatable, Sendable {
  var perColumn: [(name: String, count: Int)]
  var perTag: [(tag: String, count: Int)]

  init(cards: EntityStore<Card>, columns: EntityStore<Column>) {
    var byColumn: [Int: Int] = [:]
    var byTag: [String: Int] = [:]
    for card in cards {
      byColumn[card.columnID, default: 0] += 1
      for tag in card.tags { byTag[tag, default: 0] += 1 }
    }
    perColumn = columns.map { ($0.name, byColumn[$0.id] ?? 0) }
    perTag = byTag.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { ($0.key, $0.value) }
  }

  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.perColumn.elementsEqual(rhs.perColumn) { $0 == $1 }
      && lhs.perTag.elementsEqual(rhs.perTag) { $0 == $1 }
  }
}
