public import EntityTracking
public import Foundation
import Observation
public import PersistencePostgres
public import ReduxCore

/// A card of the shared board: the fields the terminal board (`board --server`) shows.
/// `revision` counts its writes; its ``entityTag`` is its HTTP `ETag`, and a write names the
/// tag it was made against (`If-Match`).
public struct Card: Codable, Identifiable, Equatable, Sendable {
  public let id: String
  public var columnID: String
  public var title: String
  public var notes: String
  public var tags: [String]
  public var due: Date?
  public let createdAt: Date
  public var updatedAt: Date
  public var revision: Int
  /// The client that made the card's last change, as it names itself (`X-Board-Client`);
  /// `nil` when it did not, or for a card changed before clients were recorded.
  public var updatedBy: String?
  /// The keys of the last sync changes (`POST /sync/push`) applied to the card, with the
  /// revision each made: a push retried with one is answered, not applied again, however
  /// the card changed since.
  public var syncReceipts: [SyncReceipt]?

  public init(
    id: String, columnID: String, title: String, notes: String = "", tags: [String] = [],
    due: Date? = nil, createdAt: Date = Date(), updatedAt: Date? = nil, revision: Int = 1,
    updatedBy: String? = nil, syncReceipts: [SyncReceipt]? = nil
  ) {
    self.id = id
    self.columnID = columnID
    self.title = title
    self.notes = notes
    self.tags = tags
    self.due = due
    self.createdAt = createdAt
    self.updatedAt = updatedAt ?? createdAt
    self.revision = revision
    self.updatedBy = updatedBy
    self.syncReceipts = syncReceipts
  }

  private enum CodingKeys: String, CodingKey {
    case id, columnID, title, notes, tags, due, createdAt, updatedAt, revision, updatedBy,
      syncReceipts
  }

  /// Rows written before notes, tags and times existed decode with empty ones.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    id = try container.decode(String.self, forKey: .id)
    columnID = try container.decode(String.self, forKey: .columnID)
    title = try container.decode(String.self, forKey: .title)
    notes = try container.decodeIfPresent(String.self, forKey: .notes) ?? ""
    tags = try container.decodeIfPresent([String].self, forKey: .tags) ?? []
    due = try container.decodeIfPresent(Date.self, forKey: .due)
    createdAt = try container.decodeIfPresent(Date.self, forKey: .createdAt) ?? .distantPast
    updatedAt = try container.decodeIfPresent(Date.self, forKey: .updatedAt) ?? createdAt
    revision = try container.decode(Int.self, forKey: .revision)
    updatedBy = try container.decodeIfPresent(String.self, forKey: .updatedBy)
    syncReceipts = try container.decodeIfPresent([SyncReceipt].self, forKey: .syncReceipts)
  }
}

extension Card {
  /// The card's strong `ETag`: its revision and a hash of its fields.
  ///
  /// NB: not the revision alone. Two instances can each make revision 3 of a card, of which
  /// only one commits; a client that read the other (not yet refused) would otherwise write
  /// over the committed one with `If-Match: "3"` and never have seen it.
  public var entityTag: String {
    let fields = [
      id, columnID, title, notes, tags.joined(separator: "\u{1e}"),
      due.map { "\($0.timeIntervalSinceReferenceDate)" } ?? "",
    ]
    return "\"\(revision)-\(fnv1a(fields.joined(separator: "\u{1f}").utf8))\""
  }
}

/// A column of the shared board.
public struct Column: Codable, Identifiable, Equatable, Sendable {
  public let id: String
  public var name: String
  public var revision: Int
  /// The client that made the column's last change, as ``Card/updatedBy``.
  public var updatedBy: String?
  /// The keys of the last sync changes applied to the column, as ``Card/syncReceipts``.
  public var syncReceipts: [SyncReceipt]?

  public init(
    id: String, name: String, revision: Int = 1, updatedBy: String? = nil,
    syncReceipts: [SyncReceipt]? = nil
  ) {
    self.id = id
    self.name = name
    self.revision = revision
    self.updatedBy = updatedBy
    self.syncReceipts = syncReceipts
  }

  /// The column's strong `ETag`, as ``Card/entityTag``.
  public var entityTag: String {
    "\"\(revision)-\(fnv1a([id, name].joined(separator: "\u{1f}").utf8))\""
  }
}

/// A sync change applied to a row: its key, and the revision it made.
public struct SyncReceipt: Codable, Equatable, Sendable {
  public let key: String
  public let revision: Int

  /// How many receipts a row keeps: a retry older than that many sync changes to the row
  /// is decided again (a conflict, where it would have been applied).
  public static let kept = 20

  public init(key: String, revision: Int) {
    self.key = key
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
  case deleteColumn(id: String)
  case putCard(Card)
  /// Puts a card that changed column: it goes last there.
  case moveCard(Card)
  case deleteCard(id: String)
  /// Other instances' changes (or the server's rows of a resolved conflict): hydration,
  /// never written back.
  case remoteColumns(RemoteChanges<Column>)
  case remoteCards(RemoteChanges<Card>)
  /// Puts back, as the database holds them, the rows of writes the database refused: their
  /// values in `columns` and `cards` (the board before the write), or gone if absent there.
  case revert(rejected: [RejectedWrite], columns: EntityStore<Column>, cards: EntityStore<Card>)
  /// A sync push's changes, reduced in one pass (one drain for persistence, not one each).
  case batch([BoardAction])

  /// Whether another instance made the change.
  public var isRemote: Bool {
    switch self {
    case .remoteColumns, .remoteCards: true
    case .putColumn, .deleteColumn, .putCard, .moveCard, .deleteCard, .revert, .batch: false
    }
  }
}

/// The board's one reducer.
@MainActor
let boardReducer = AnyReducer<BoardState, BoardAction>(id: "board") { context in
  let (state, action) = context.args
  reduce(state, action)
}

@MainActor
private func reduce(_ state: BoardState, _ action: BoardAction) {
  switch action {
  case .batch(let actions):
    for action in actions { reduce(state, action) }
  case .putColumn(let column): state.columns.upsert(column)
  case .deleteColumn(let id): state.columns.remove(id)
  case .putCard(let card): state.cards.upsert(card)
  case .moveCard(let card):
    state.cards.remove(card.id)
    state.cards.upsert(card)
  case .deleteCard(let id): state.cards.remove(id)
  case .remoteColumns(let changes): state.columns.apply(changes)
  case .remoteCards(let changes): state.cards.apply(changes)
  case .revert(let rejected, let columns, let cards):
    // NB: hydration: the database holds these rows as they were; nothing to write back.
    for write in rejected {
      switch write.table {
      case "columns": state.columns.putBack(write.id, as: columns[write.id])
      case "cards": state.cards.putBack(write.id, as: cards[write.id])
      default: break
      }
    }
  }
}

extension EntityStore {
  /// Holds `entity` under `id`, or nothing, without recording a change.
  fileprivate mutating func putBack(_ id: Entity.ID, as entity: Entity?) {
    guard let entity else {
      removeWithoutRecording(id)
      return
    }
    merge(from: EntityStore([entity])) { _, old in old }
  }
}

/// FNV-1a of `bytes`, in hex: the same on every instance and run (`Hasher` is seeded per
/// process).
func fnv1a(_ bytes: some Sequence<UInt8>) -> String {
  var hash: UInt64 = 0xcbf2_9ce4_8422_2325
  for byte in bytes {
    hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
  }
  return String(hash, radix: 16)
}
