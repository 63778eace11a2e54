import Persistence

/// A remote in this process, keeping ``SyncRemote``'s contract: for tests and previews, and the
/// reference a server's implementation is checked against.
///
/// It can be made unreachable (every call throws ``Unreachable``) and can lose the reply of the
/// next push after applying it, as a connection dropped between the commit and its answer, and
/// can forget its history, as a server that restarts or compacts its log.
public actor InMemorySyncRemote: SyncRemote {
  /// The error of a call while the remote is unreachable, or of a reply it lost.
  public struct Unreachable: Error, Equatable {}

  private struct Row {
    var json: String
    var version: Int64
    var writer: String
  }

  private var tables: [String: [String: Row]] = [:]
  /// Each row's last change, deletions included: a row made again after a deletion goes on
  /// above its version, and a replica's own last change is known as its own.
  private var lastChanges: [String: [String: (version: Int64, writer: String)]] = [:]
  /// What a pull reads: the changes since the remote last forgot its history, preceded (once
  /// it has) by one change per row it holds.
  private var log: [SyncedRow] = []
  /// Every change applied, for the tests (`appliedChanges`).
  private var history: [SyncedRow] = []
  /// Names the log: a cursor of another epoch starts over.
  private var epoch = 0
  private var outcomes: [String: SyncOutcome] = [:]
  private var reachable = true
  private var losesNextReply = false

  /// An empty remote.
  public init() {}

  /// Makes every call succeed or throw ``Unreachable``.
  public func setReachable(_ reachable: Bool) {
    self.reachable = reachable
  }

  /// Applies the next push, then throws ``Unreachable`` instead of answering.
  public func loseNextReply() {
    losesNextReply = true
  }

  /// The rows of `table` now, JSON by id.
  public func rows(of table: String) -> [String: String] {
    tables[table, default: [:]].mapValues(\.json)
  }

  /// The version of a row now, `nil` when there is none.
  public func version(of id: String, in table: String) -> Int64? {
    tables[table]?[id]?.version
  }

  /// The changes applied so far.
  public var appliedChanges: [SyncedRow] { history }

  /// Forgets the changes applied so far, as a server that restarts or compacts its log: the
  /// log becomes one change per row held, and a pull from an earlier cursor starts over.
  public func forgetHistory() {
    epoch += 1
    log = tables.keys.sorted().flatMap { table in
      tables[table, default: [:]].sorted { $0.key < $1.key }.map { id, row in
        SyncedRow(table: table, id: id, json: row.json, version: row.version, writer: row.writer)
      }
    }
  }

  /// Writes a row as another writer would (`json == nil` deletes it), whatever its version.
  public func write(_ json: String?, id: String, in table: String, by writer: String) {
    apply(json, id: id, in: table, by: writer)
  }

  public func push(_ changes: [SyncChange], from replica: String) throws -> [SyncOutcome] {
    guard reachable else { throw Unreachable() }
    var answers: [SyncOutcome] = []
    answers.reserveCapacity(changes.count)
    for change in changes {
      if let outcome = outcomes[change.key] {
        answers.append(outcome)
        continue
      }
      let current = tables[change.table]?[change.id]
      let outcome: SyncOutcome
      if change.json == nil, current == nil {
        outcome = .applied(version: nil)  // both wanted it deleted
      } else if current?.version == change.baseVersion
        || lastChanges[change.table]?[change.id]?.writer == replica
      {
        outcome = .applied(
          version: apply(change.json, id: change.id, in: change.table, by: replica))
      } else {
        outcome = .conflict(
          PersistenceConflict(
            table: change.table, id: change.id, expectedVersion: change.baseVersion,
            currentVersion: current?.version, currentJSON: current?.json))
      }
      outcomes[change.key] = outcome
      answers.append(outcome)
    }
    if losesNextReply {
      losesNextReply = false
      throw Unreachable()
    }
    return answers
  }

  public func pull(after cursor: String?, limit: Int) throws -> SyncPage {
    guard reachable else { throw Unreachable() }
    let parts = cursor?.split(separator: ":").compactMap { Int($0) } ?? []
    let known = parts.count == 2 && parts[0] == epoch && parts[1] <= log.count
    let start = known ? parts[1] : 0
    let end = min(log.count, start + max(limit, 1))
    return SyncPage(
      rows: Array(log[start..<end]), cursor: "\(epoch):\(end)",
      startsOver: cursor != nil && !known)
  }

  /// Writes or deletes a row at its next version and logs it.
  ///
  /// - Returns: The row's version, `nil` once deleted.
  @discardableResult
  private func apply(_ json: String?, id: String, in table: String, by writer: String) -> Int64? {
    let version = (lastChanges[table]?[id]?.version ?? 0) + 1
    lastChanges[table, default: [:]][id] = (version, writer)
    if let json {
      tables[table, default: [:]][id] = Row(json: json, version: version, writer: writer)
    } else {
      tables[table]?[id] = nil
    }
    let row = SyncedRow(table: table, id: id, json: json, version: version, writer: writer)
    log.append(row)
    history.append(row)
    return json == nil ? nil : version
  }
}
