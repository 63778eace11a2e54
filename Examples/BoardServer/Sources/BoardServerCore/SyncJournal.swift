import Foundation

/// The order in which this instance's board changed, for `GET /sync/pull`: the rows a change
/// touched, oldest first, each read as the board holds it when pulled (its latest value, or its
/// deletion). It starts with every row loaded, so that a pull from its start brings the whole
/// board.
///
/// NB: in memory, and this instance's own: a cursor names the journal's epoch, and a cursor of
/// another epoch (another instance, a restart, a compaction) starts over, a replay the replica
/// knows how to take (`SyncPage.startsOver`). The database's change log could not serve: on
/// PostgreSQL it is pruned as soon as the live instances have read it.
struct SyncJournal {
  /// One row a change touched.
  struct Entry: Equatable {
    let table: String
    let id: String
  }

  /// Names this journal in cursors: unique per instance start and compaction.
  private(set) var epoch = UUID().uuidString.lowercased()
  private(set) var entries: [Entry] = []
  /// The version a pull gives a deleted row: one above its last revision.
  private var deletions: [Entry: Int] = [:]

  init(columns: [String], cards: [String]) {
    entries =
      columns.map { Entry(table: "columns", id: $0) }
      + cards.map {
        Entry(table: "cards", id: $0)
      }
  }

  /// Notes that a row changed; `deletedAt` is its last revision when the change deleted it.
  mutating func record(_ table: String, _ id: String, deletedAt revision: Int? = nil) {
    let entry = Entry(table: table, id: id)
    entries.append(entry)
    deletions[entry] = revision.map { $0 + 1 }
  }

  /// The version a row's deletion took (one above its last revision), `nil` when this
  /// instance never saw it deleted (a pull then gives it above any version: a replay's).
  func deletedVersion(_ table: String, _ id: String) -> Int? {
    deletions[Entry(table: table, id: id)]
  }

  /// Where a pull from `cursor` starts: an offset in the entries, or `nil` when the cursor is
  /// not this journal's (the pull starts over).
  func offset(of cursor: String) -> Int? {
    let parts = cursor.split(separator: "/")
    guard parts.count == 2, parts[0] == epoch, let offset = Int(parts[1]),
      (0...entries.count).contains(offset)
    else { return nil }
    return offset
  }

  /// The cursor after the first `offset` entries.
  func cursor(at offset: Int) -> String { "\(epoch)/\(offset)" }

  /// Keeps one entry per row that still exists, under a new epoch, once the journal holds
  /// more than twice as many entries as `rows` (and at least 10,000): the cursors given so
  /// far start over.
  mutating func compact(rows: Int, exists: (Entry) -> Bool) {
    guard entries.count > max(10_000, 2 * rows) else { return }
    var seen = Set<Entry>()
    var kept: [Entry] = []
    for entry in entries.reversed() where exists(entry) && seen.insert(entry).inserted {
      kept.append(entry)
    }
    entries = kept.reversed()
    deletions = [:]
    epoch = UUID().uuidString.lowercased()
  }
}

extension SyncJournal.Entry: Hashable {}
