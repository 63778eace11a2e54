import Persistence
public import PersistenceSync

/// Checks that a ``/PersistenceSync/SyncRemote`` keeps the contract a `SyncReplica` relies on:
/// run it against a server's client as the library's tests run it against
/// `InMemorySyncRemote`.
///
/// ```swift
/// @Test func keepsTheContract() async throws {
///   let contract = SyncRemoteContract(table: "cards") { id, n in #"{"id":"\#(id)","title":"\#(n)"}"# }
///   try await contract.verify { try await makeServerClient() }
/// }
/// ```
///
/// Each check runs on a remote of its own (`makeRemote` is called once per check) and names
/// its rows with ids unique to the run.
public struct SyncRemoteContract: Sendable {
  /// What a remote did that the contract does not allow.
  public struct Violation: Error, CustomStringConvertible {
    /// The check that failed, and what was seen.
    public let description: String
  }

  /// The table the checks write.
  public let table: String
  /// A row of `table` as JSON: the `n`th value of the row `id` (each `n` a different value).
  public let value: @Sendable (_ id: String, _ n: Int) -> String
  private let run: String

  /// A contract over rows of `table` made by `value`.
  ///
  /// - Parameters:
  ///   - table: A table the remote syncs.
  ///   - value: The JSON of a valid row: its `n`th value for the id `id`.
  public init(table: String, value: @escaping @Sendable (_ id: String, _ n: Int) -> String) {
    self.table = table
    self.value = value
    run = String(UInt64.random(in: 0...UInt64.max), radix: 36)
  }

  /// Runs every check, each on a new remote.
  ///
  /// - Parameter makeRemote: Makes a remote whose rows of ``table`` the checks may write.
  /// - Throws: ``Violation`` at the first check that fails, or what the remote throws.
  public func verify(_ makeRemote: () async throws -> any SyncRemote) async throws {
    try await appliesOnItsBaseAndRefusesAStaleOne(makeRemote())
    try await appliesAKeyOnce(makeRemote())
    try await appliesOnTheReplicasOwnWrite(makeRemote())
    try await deletes(makeRemote())
    try await pullsEveryChangeInOrder(makeRemote())
  }

  // MARK: - The checks

  private func appliesOnItsBaseAndRefusesAStaleOne(_ remote: any SyncRemote) async throws {
    let id = "\(run)-base"
    let made = try await push(remote, "a", key: "a:1", id: id, value(id, 1), base: nil)
    guard case .applied(let version?) = made else {
      throw Violation(description: "a new row (no base) was not applied: \(made)")
    }
    let edited = try await push(remote, "a", key: "a:2", id: id, value(id, 2), base: version)
    guard case .applied(let next?) = edited, next > version else {
      throw Violation(description: "an edit on the row's version was not applied: \(edited)")
    }
    let stale = try await push(remote, "b", key: "b:1", id: id, value(id, 3), base: version)
    guard case .conflict(let conflict) = stale else {
      throw Violation(description: "an edit on a stale version by another replica: \(stale)")
    }
    guard conflict.currentVersion == next, conflict.expectedVersion == version,
      conflict.currentJSON != nil, conflict.table == table, conflict.id == id
    else {
      throw Violation(description: "a conflict does not carry the row as it is: \(conflict)")
    }
    let made2 = try await push(remote, "b", key: "b:2", id: id, value(id, 4), base: nil)
    guard case .conflict = made2 else {
      throw Violation(description: "a row made again over another replica's: \(made2)")
    }
  }

  private func appliesAKeyOnce(_ remote: any SyncRemote) async throws {
    let id = "\(run)-once"
    let first = try await push(remote, "a", key: "a:1", id: id, value(id, 1), base: nil)
    let again = try await push(remote, "a", key: "a:1", id: id, value(id, 1), base: nil)
    guard first == again else {
      throw Violation(description: "a retried key answered \(again), first \(first)")
    }
    let rows = try await changes(remote).filter { $0.id == id }
    guard rows.count == 1 else {
      throw Violation(description: "a retried key was applied \(rows.count) times")
    }
  }

  private func appliesOnTheReplicasOwnWrite(_ remote: any SyncRemote) async throws {
    let id = "\(run)-own"
    _ = try await push(remote, "a", key: "a:1", id: id, value(id, 1), base: nil)
    // The reply of a:1 lost: the replica still has no base, and edits again.
    let edit = try await push(remote, "a", key: "a:2", id: id, value(id, 2), base: nil)
    guard case .applied(.some) = edit else {
      throw Violation(description: "an edit on the replica's own last write: \(edit)")
    }
  }

  private func deletes(_ remote: any SyncRemote) async throws {
    let id = "\(run)-delete"
    guard
      case .applied(let version?) = try await push(
        remote, "a", key: "a:1", id: id, value(id, 1), base: nil)
    else { throw Violation(description: "a new row was not applied") }
    let deleted = try await push(remote, "a", key: "a:2", id: id, nil, base: version)
    guard case .applied(nil) = deleted else {
      throw Violation(description: "a deletion on the row's version: \(deleted)")
    }
    let both = try await push(remote, "b", key: "b:1", id: id, nil, base: version)
    guard case .applied(nil) = both else {
      throw Violation(description: "a deletion of a row deleted already: \(both)")
    }
    let edit = try await push(remote, "b", key: "b:2", id: id, value(id, 2), base: version)
    guard case .conflict(let conflict) = edit, conflict.currentVersion == nil else {
      throw Violation(description: "an edit of a row deleted by another replica: \(edit)")
    }
    guard let last = try await changes(remote).last(where: { $0.id == id }), last.json == nil
    else { throw Violation(description: "a pull does not end with the row's deletion") }
  }

  private func pullsEveryChangeInOrder(_ remote: any SyncRemote) async throws {
    let ids = (1...3).map { "\(run)-order-\($0)" }
    for (n, id) in ids.enumerated() {
      _ = try await push(remote, "a", key: "a:\(n)", id: id, value(id, n), base: nil)
    }
    var cursor: String?
    var seen: [String] = []
    for _ in 0..<100 {
      let page = try await remote.pull(after: cursor, limit: 1)
      guard page.rows.count <= 1 else {
        throw Violation(description: "a pull of at most 1 returned \(page.rows.count)")
      }
      if page.rows.isEmpty { break }
      seen += page.rows.filter { ids.contains($0.id) }.map(\.id)
      cursor = page.cursor
    }
    guard seen == ids else {
      throw Violation(description: "pulls one at a time saw \(seen), pushed \(ids)")
    }
    let after = try await remote.pull(after: cursor, limit: 10)
    guard after.rows.isEmpty else {
      throw Violation(description: "a pull after the last cursor returned \(after.rows.count)")
    }
  }

  // MARK: - Helpers

  private func push(
    _ remote: any SyncRemote, _ replica: String, key: String, id: String, _ json: String?,
    base: Int64?
  ) async throws -> SyncOutcome {
    let change = SyncChange(
      key: "\(run):\(replica):\(key)", table: table, id: id, json: json, baseVersion: base)
    let outcomes = try await remote.push([change], from: "\(run)-\(replica)")
    guard outcomes.count == 1, let outcome = outcomes.first else {
      throw Violation(description: "a push of one change answered \(outcomes.count) outcomes")
    }
    return outcome
  }

  /// Every change of the table, from the start.
  private func changes(_ remote: any SyncRemote) async throws -> [SyncedRow] {
    var rows: [SyncedRow] = []
    var cursor: String?
    while true {
      let page = try await remote.pull(after: cursor, limit: 100)
      if page.rows.isEmpty { return rows }
      rows += page.rows.filter { $0.table == table }
      cursor = page.cursor
    }
  }
}
