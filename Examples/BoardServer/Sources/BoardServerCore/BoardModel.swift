public import EntityTracking
import Observation
public import PersistencePostgres
public import ReduxCore

/// A card of the shared board. `revision` counts its writes: it is the card's HTTP `ETag`,
/// and a write names the revision it was made against (`If-Match`).
public struct Card: Codable, Identifiable, Equatable, Sendable {
  public let id: String
  public var columnID: String
  public var title: String
  public var revision: Int

  public init(id: String, columnID: String, title: String, revision: Int = 1) {
    self.id = id
    self.columnID = columnID
    self.title = title
    self.revision = revision
  }
}

/// A column of the shared board.
public struct Column: Codable, Identifiable, Equatable, Sendable {
  public let id: String
  public var name: String
  public var revision: Int

  public init(id: String, name: String, revision: Int = 1) {
    self.id = id
    self.name = name
    self.revision = revision
  }
}

/// The server's state: the board, as every instance holds it.
@MainActor
@Observable
public final class BoardState: ReduxState {
  public var columns: EntityStore<Column>
  public var cards: EntityStore<Card>

  public init(columns: EntityStore<Column> = [], cards: EntityStore<Card> = []) {
    self.columns = columns
    self.cards = cards
  }
}

/// What changes the board: a request's write, or another instance's changes (remote).
public enum BoardAction: ReduxAction {
  case putColumn(Column)
  case putCard(Card)
  case deleteCard(id: String)
  /// Other instances' changes (or the server's rows of a resolved conflict): hydration,
  /// never written back.
  case remoteColumns(RemoteChanges<Column>)
  case remoteCards(RemoteChanges<Card>)

  /// Whether another instance made the change.
  public var isRemote: Bool {
    switch self {
    case .remoteColumns, .remoteCards: true
    case .putColumn, .putCard, .deleteCard: false
    }
  }
}

/// The board's one reducer.
@MainActor
let boardReducer = AnyReducer<BoardState, BoardAction>(id: "board") { context in
  let (state, action) = context.args
  switch action {
  case .putColumn(let column): state.columns.upsert(column)
  case .putCard(let card): state.cards.upsert(card)
  case .deleteCard(let id): state.cards.remove(id)
  case .remoteColumns(let changes): state.columns.apply(changes)
  case .remoteCards(let changes): state.cards.apply(changes)
  }
}

/// A weak `ETag` for a list: the same entities at the same revisions, in the same order, give
/// the same tag on every instance (FNV-1a, not `Hasher`, which is seeded per process).
func listTag<Entity: Identifiable>(_ entities: some Sequence<Entity>, revision: (Entity) -> Int)
  -> String where Entity.ID == String
{
  var hash: UInt64 = 0xcbf2_9ce4_8422_2325
  for entity in entities {
    for byte in "\(entity.id):\(revision(entity));".utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }
  }
  return "W/\"\(String(hash, radix: 16))\""
}
