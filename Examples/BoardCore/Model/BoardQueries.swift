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

  /// The cards whose title, notes or tags contain `needle` (lowercased), without case.
  nonisolated static func search(_ needle: String, in cards: EntityStore<Card>) -> [Card] {
    let match = CaseInsensitiveMatch(needle)
    return cards.filter { card in
      match.isFound(in: card.title) || match.isFound(in: card.notes)
        || card.tags.contains { $0.contains(needle) }
    }
  }
}

/// Whether a text contains a lowercased needle, without case. Lowercasing every title and note
/// made a copy of each per keystroke (20 ms at 10,000 cards): ASCII text is compared byte by
/// byte, folded as it is read; other text is lowercased as before (Unicode case mapping may
/// change its length).
struct CaseInsensitiveMatch {
  private let needle: String
  private let bytes: [UInt8]
  private let isASCII: Bool

  init(_ lowercasedNeedle: String) {
    needle = lowercasedNeedle
    bytes = Array(lowercasedNeedle.utf8)
    isASCII = bytes.allSatisfy { $0 < 0x80 }
  }

  func isFound(in text: String) -> Bool {
    guard !bytes.isEmpty else { return true }
    guard isASCII else { return text.lowercased().contains(needle) }
    var text = text
    let found = text.withUTF8 { haystack -> Bool? in
      guard haystack.count >= bytes.count else {
        return haystack.contains { $0 >= 0x80 } ? nil : false
      }
      let first = bytes[0]
      for start in 0...(haystack.count - bytes.count) {
        let byte = haystack[start]
        if byte >= 0x80 { return nil }
        guard Self.folded(byte) == first else { continue }
        var offset = 1
        while offset < bytes.count, Self.folded(haystack[start + offset]) == bytes[offset] {
          offset += 1
        }
        if offset == bytes.count { return true }
      }
      // NB: the bytes after the last start were not looked at as starts: any non-ASCII?
      return haystack[(haystack.count - bytes.count + 1)...].contains { $0 >= 0x80 } ? nil : false
    }
    return found ?? text.lowercased().contains(needle)
  }

  private static func folded(_ byte: UInt8) -> UInt8 {
    (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
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
