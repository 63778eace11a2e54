import EntityTracking
import Foundation
import Logging
import Persistence
public import PersistenceSync
import ReduxCore

/// The board as a `SyncRemote` keeps it (`POST /sync/push`, `GET /sync/pull`): rows are cards
/// and columns as JSON (Foundation's default coding, as `SyncedTable` writes them), a row's
/// version is its `revision`, and the replica that made a row's revision is its `updatedBy`.
extension BoardService {
  /// The tables a replica syncs.
  nonisolated public static let syncedTables = ["columns", "cards"]

  /// Applies a replica's changes in order, each once (``Card/syncReceipts``), in one commit.
  ///
  /// A change the board cannot take (a field too long, a card whose column is gone, a column
  /// that still holds cards) is refused as a conflict with the row as the board holds it, and
  /// logged: the replica shows it to its user, who keeps the board's row or changes theirs.
  ///
  /// - Returns: One outcome per change; a failure when the database could not commit (the
  ///   changes before it stand, and a retry with the same keys answers them again).
  public func syncPush(_ changes: [SyncChange], from replica: String) async -> Result<
    [SyncOutcome], BoardError
  > {
    guard (1...64).contains(replica.utf8.count) else {
      return .failure(.invalid("a replica names itself in 1 to 64 bytes"))
    }
    if let unknown = changes.first(where: { !Self.syncedTables.contains($0.table) }) {
      return .failure(.invalid("no table \(unknown.table)"))
    }
    return await serially { [self] () async -> Result<[SyncOutcome], BoardError> in
      guard persistence.status.pendingCount == 0 else {
        return .failure(.notPersisted("earlier changes wait to be written"))
      }
      return await apply(changes, from: replica)
    }
  }

  /// The changes after `cursor`, in the order this instance saw them, each row as it is now.
  ///
  /// - Parameters:
  ///   - cursor: Where the last pull ended; `nil`, or a cursor this instance did not give
  ///     (another instance's, or one from before a restart), starts from the whole board.
  ///   - limit: The most rows to return (1 to 1,000).
  /// - Returns: The page; a failure while changes wait to be written (try again).
  public func syncPull(after cursor: String?, limit: Int) async -> Result<SyncPage, BoardError> {
    await serially { [self] () async -> Result<SyncPage, BoardError> in
      // NB: the state then holds what the database holds, and nothing it may yet lose.
      guard persistence.status.pendingCount == 0 else {
        return .failure(.notPersisted("changes wait to be written"))
      }
      let known = cursor.flatMap(journal.offset(of:))
      let start = known ?? 0
      let end = min(journal.entries.count, start + min(max(limit, 1), 1_000))
      let rows = journal.entries[start..<end].map { entry in
        syncedRow(entry.table, entry.id)
      }
      return .success(
        SyncPage(
          rows: rows, cursor: journal.cursor(at: end), startsOver: cursor != nil && known == nil))
    }
  }

  // MARK: - One change

  /// A row as the board holds it, for a replica.
  private struct Held {
    let revision: Int
    let updatedBy: String?
    let receipts: [SyncReceipt]
    let json: String
  }

  private func held(_ table: String, _ id: String) -> Held? {
    if table == "cards", let card = store.cards[id] {
      return Held(
        revision: card.revision, updatedBy: card.updatedBy, receipts: card.syncReceipts ?? [],
        json: Self.syncJSON(card))
    }
    if table == "columns", let column = store.columns[id] {
      return Held(
        revision: column.revision, updatedBy: column.updatedBy, receipts: column.syncReceipts ?? [],
        json: Self.syncJSON(column))
    }
    return nil
  }

  private func syncedRow(_ table: String, _ id: String) -> SyncedRow {
    guard let row = held(table, id) else {
      let version = journal.deletedVersion(table, id).map(Int64.init) ?? .max
      return SyncedRow(table: table, id: id, json: nil, version: version, writer: "")
    }
    return SyncedRow(
      table: table, id: id, json: row.json, version: Int64(row.revision),
      writer: row.updatedBy ?? "")
  }

  /// What a change comes to on the board as it is.
  private enum Decision {
    /// Answered without a write: applied before (its receipt), or refused.
    case answered(SyncOutcome)
    /// Applied by this write, once committed.
    case write(BoardAction, SyncOutcome)
  }

  /// Applies the changes that apply, all in one commit.
  ///
  /// NB: each is decided on the board the ones before it left (a card may come in the push
  /// that makes its column). When the commit meets another instance's (PostgreSQL), that
  /// instance's rows replace the conflicting ones and the rest is committed: a change whose
  /// receipt is on its row landed, the others are decided again on the new board.
  private func apply(_ changes: [SyncChange], from replica: String) async -> Result<
    [SyncOutcome], BoardError
  > {
    var outcomes = [SyncOutcome?](repeating: nil, count: changes.count)
    for _ in 0..<3 {
      let before = (columns: store.columns, cards: store.cards)
      var written: [(offset: Int, outcome: SyncOutcome)] = []
      // NB: reduced a batch at a time; a change that reads more of the board than its own row
      // (a column's, a card's column) or a row already in the batch waits for the batch.
      var batch: [BoardAction] = []
      var rows = Set<String>()
      var batchHasColumns = false
      for (offset, change) in changes.enumerated() where outcomes[offset] == nil {
        let row = change.table + "\u{0}" + change.id
        if !batch.isEmpty, change.table == "columns" || batchHasColumns || rows.contains(row) {
          if case .failure(let error) = await dispatchWrite(.batch(batch)) {
            return .failure(error)
          }
          (batch, rows, batchHasColumns) = ([], [], false)
        }
        switch decide(change, from: replica) {
        case .answered(let outcome): outcomes[offset] = outcome
        case .write(let action, let outcome):
          batch.append(action)
          rows.insert(row)
          batchHasColumns = batchHasColumns || change.table == "columns"
          written.append((offset, outcome))
        }
      }
      if !batch.isEmpty, case .failure(let error) = await dispatchWrite(.batch(batch)) {
        return .failure(error)
      }
      if written.isEmpty { break }
      let committed = await commit(revertingTo: before)
      for (offset, outcome) in written {
        let change = changes[offset]
        let row = held(change.table, change.id)
        let landed =
          change.json == nil ? row == nil : row?.receipts.contains { $0.key == change.key } == true
        if landed {
          outcomes[offset] = outcome
        } else if case .failure(.unstorable(let reason)) = committed {
          logger.notice(
            "sync: a change the database refuses, refused as a conflict",
            metadata: ["table": "\(change.table)", "id": "\(change.id)", "reason": "\(reason)"])
          outcomes[offset] = .conflict(conflict(change, row))
        }
      }
      switch committed {
      case .success, .failure(.conflict), .failure(.unstorable): continue
      case .failure(let error): return .failure(error)
      }
    }
    let answered = outcomes.compactMap { $0 }
    guard answered.count == changes.count else {
      return .failure(.notPersisted("rows kept changing on other instances"))
    }
    return .success(answered)
  }

  /// Decides one change on the board as it is.
  private func decide(_ change: SyncChange, from replica: String) -> Decision {
    let current = held(change.table, change.id)
    if let receipt = current?.receipts.last(where: { $0.key == change.key }) {
      return .answered(.applied(version: Int64(receipt.revision)))
    }
    if change.json == nil, current == nil { return .answered(.applied(version: nil)) }
    let onBase = current.map { Int64($0.revision) } == change.baseVersion
    guard onBase || (current != nil && current?.updatedBy == replica) else {
      return .answered(.conflict(conflict(change, current)))
    }
    if current == nil, change.json != nil,
      case .failure(let invalid) = newID(change.id, taken: false)
    {
      logger.notice(
        "sync: a row under an id the board does not take, refused as a conflict",
        metadata: ["table": "\(change.table)", "error": "\(invalid)"])
      return .answered(.conflict(conflict(change, nil)))
    }
    let revision =
      (current?.revision ?? journal.deletedVersion(change.table, change.id) ?? 0) + 1
    let receipts = Array(
      ((current?.receipts ?? []) + [SyncReceipt(key: change.key, revision: revision)])
        .suffix(SyncReceipt.kept))
    switch syncAction(change, revision: revision, receipts: receipts, by: replica) {
    case .success(let action):
      return .write(action, .applied(version: change.json == nil ? nil : Int64(revision)))
    case .failure(let error):
      logger.notice(
        "sync: a change the board cannot take, refused as a conflict",
        metadata: [
          "table": "\(change.table)", "id": "\(change.id)", "replica": "\(replica)",
          "error": "\(error)",
        ])
      return .answered(.conflict(conflict(change, current)))
    }
  }

  private func conflict(_ change: SyncChange, _ current: Held?) -> PersistenceConflict {
    PersistenceConflict(
      table: change.table, id: change.id, expectedVersion: change.baseVersion,
      currentVersion: current.map { Int64($0.revision) }, currentJSON: current?.json)
  }

  /// The board's action for a change at `revision`, checked as a request's would be.
  private func syncAction(
    _ change: SyncChange, revision: Int, receipts: [SyncReceipt], by replica: String
  ) -> Result<
    BoardAction, BoardError
  > {
    let decoder = JSONDecoder()
    switch (change.table, change.json) {
    case ("columns", nil):
      let count = store.cards.count { $0.columnID == change.id }
      guard count == 0 else { return .failure(.conflictingState("it holds \(count) card(s)")) }
      return .success(.deleteColumn(id: change.id))
    case ("cards", nil):
      return .success(.deleteCard(id: change.id))
    case ("columns", let json?):
      guard let fields = try? decoder.decode(SyncedColumn.self, from: Data(json.utf8)) else {
        return .failure(.invalid("not a column: \(json)"))
      }
      guard !fields.name.isEmpty else { return .failure(.invalid("a column needs a name")) }
      if let invalid = Self.invalidText(["name": fields.name]) { return .failure(invalid) }
      return .success(
        .putColumn(
          Column(
            id: change.id, name: fields.name, revision: revision, updatedBy: replica,
            syncReceipts: receipts)))
    default:
      guard let json = change.json,
        let fields = try? decoder.decode(SyncedCard.self, from: Data(json.utf8))
      else { return .failure(.invalid("not a card: \(change.json ?? "")")) }
      guard !fields.title.isEmpty else { return .failure(.invalid("a card needs a title")) }
      if let invalid = Self.invalidText(
        ["title": fields.title, "notes": fields.notes ?? ""], tags: fields.tags ?? [])
      {
        return .failure(invalid)
      }
      guard store.columns[fields.columnID] != nil else {
        return .failure(.invalid("no column \(fields.columnID)"))
      }
      let existing = store.cards[change.id]
      let card = Card(
        id: change.id, columnID: fields.columnID, title: fields.title, notes: fields.notes ?? "",
        tags: fields.tags ?? [], due: fields.due, createdAt: existing?.createdAt ?? now(),
        updatedAt: now(), revision: revision, updatedBy: replica,
        syncReceipts: receipts)
      let moves = existing.map { $0.columnID != card.columnID } ?? false
      return .success(moves ? .moveCard(card) : .putCard(card))
    }
  }

  nonisolated static func syncJSON(_ value: some Encodable) -> String {
    // NB: the board's own values: they encode.
    String(decoding: (try? JSONEncoder().encode(value)) ?? Data(), as: UTF8.self)
  }
}

/// The fields of a card a replica sends; the board keeps the rest (`revision`, `updatedBy`,
/// `syncReceipts`, `createdAt`, `updatedAt`).
private struct SyncedCard: Decodable {
  let columnID: String
  let title: String
  let notes: String?
  let tags: [String]?
  let due: Date?
}

/// The fields of a column a replica sends.
private struct SyncedColumn: Decodable {
  let name: String
}
