public import EntityTracking

/// Other writers' changes to one table, as a backend's change feed read them (another process
/// on the same SQLite file, another instance on the same PostgreSQL database): the payload of
/// an app action marked as remote. A reducer applies them with `EntityStore.apply(_:)`, which
/// records nothing, so they are never written back.
///
/// ```swift
/// enum AppAction { case cardsChanged(RemoteChanges<Card>), … }
/// case .cardsChanged(let changes): state.cards.apply(changes)
/// ```
public struct RemoteChanges<Entity: Identifiable & Equatable & Sendable>: Sendable, Equatable
where Entity.ID: Sendable {
  /// One row's change: its latest value, or its deletion.
  public struct Change: Sendable, Equatable {
    /// The entity's id.
    public let id: Entity.ID
    /// The row's value, or `nil` when it was deleted.
    public let entity: Entity?
    /// The row's version after the change.
    public let version: Int64
    /// The writer (process or instance) that made it.
    public let origin: String
    /// The row's position in the table's order (see ``EntityChanges/positions``): applied,
    /// the entity takes its place among the others by it. `nil` for a deletion, or when the
    /// backend does not say.
    public let position: Double?

    /// Creates a change (a backend's feed does).
    ///
    /// - Parameters:
    ///   - id: The entity's id.
    ///   - entity: Its value, `nil` for a deletion.
    ///   - version: The row's version after the change.
    ///   - origin: The writer that made it.
    ///   - position: The row's position in the table's order.
    public init(
      id: Entity.ID, entity: Entity?, version: Int64, origin: String, position: Double? = nil
    ) {
      self.id = id
      self.entity = entity
      self.version = version
      self.origin = origin
      self.position = position
    }
  }

  /// The table's name.
  public let table: String
  /// The changes, in commit order, one per row.
  public let changes: [Change]
  /// Whether a change is news, judged against the versions the app has seen; `nil` for the
  /// database's rows of resolved conflicts (applied whatever the versions) and for a delivery
  /// decoded from a recording (applied as its verdicts say).
  let judge: Judge?
  /// Which changes the first apply took: a replay of this delivery applies the same ones.
  let verdicts = Verdicts()

  /// Asks a table's versions about a change, the entity's id turned into the table's key.
  struct Judge: Sendable {
    let verdict: @Sendable (Change) -> Bool
    let isQueued: @Sendable (Entity.ID) -> Bool
    /// The positions of the rows with these ids, at their offsets.
    let positions: @Sendable ([Entity.ID]) -> [Double?]
  }

  /// Other writers' changes, checked against `versions` when applied.
  ///
  /// - Parameters:
  ///   - table: The table's name.
  ///   - changes: One per row, in commit order.
  ///   - versions: The versions the app has seen of the table's rows: a change it has seen, or
  ///     one to a row it has a pending change of, is not applied.
  ///   - key: The table's key of an entity's id.
  public init<Key>(
    table: String, changes: [Change], versions: VersionTable<Key>,
    key: @escaping @Sendable (Entity.ID) -> Key
  ) {
    self.table = table
    self.changes = changes
    judge = Judge(
      verdict: { change in
        versions.applyRemote(
          key(change.id), version: change.version, isDeletion: change.entity == nil,
          position: change.position) == .apply
      },
      isQueued: { versions.isQueued(key($0)) },
      positions: { ids in
        versions.withPositions { positions in ids.map { positions[key($0)] } }
      })
  }

  /// Changes applied whatever the versions say (`applied == nil`), or as recorded.
  private init(table: String, changes: [Change], applied: [Bool]?) {
    self.table = table
    self.changes = changes
    judge = nil
    if let applied { verdicts.record(applied) }
  }

  /// The database's rows of `conflicts` (those of `table`), resolved for the database: the
  /// next flush drops the local changes, and these changes, applied, put the database's rows
  /// in the state. The one implementation of every backend's `keepTheirs(_:in:)`.
  ///
  /// - Parameters:
  ///   - conflicts: Conflicts a flush reported; those of other tables are left alone.
  ///   - table: The table's versions, where the resolution is recorded.
  ///   - key: The table's key of an entity's id.
  ///   - id: Parses a stored id; a conflict whose id does not parse is left alone.
  ///   - decode: Decodes a row's JSON.
  /// - Throws: What `decode` throws; nothing is resolved then.
  public init<Key, Failure: Error>(
    resolving conflicts: [PersistenceConflict], in table: VersionTable<Key>,
    key: (Entity.ID) -> Key, id: (String) -> Entity.ID?,
    decode: (_ json: String, _ id: String) throws(Failure) -> Entity
  ) throws(Failure) {
    var changes: [Change] = []
    var resolved: [(Key, Int64?)] = []
    for conflict in conflicts where conflict.table == table.name {
      guard let parsed = id(conflict.id) else { continue }
      let entity = try conflict.currentJSON.map { json throws(Failure) in
        try decode(json, conflict.id)
      }
      changes.append(
        Change(
          id: parsed, entity: entity, version: conflict.currentVersion ?? 0, origin: "database"))
      resolved.append((key(parsed), conflict.currentVersion))
    }
    for (key, version) in resolved { table.resolve(key, at: version, keeping: .theirs) }
    self.init(table: table.name, changes: changes, applied: nil)
  }

  /// The ids these changes touch, as a change set (upserts and deletions): what a query
  /// invalidation (EntityQueries' `record(_:in:)`) reads, as it reads a store's own changes.
  ///
  /// - Complexity: O(*c*), the changes.
  public var changeSet: ChangeSet<Entity.ID> {
    ChangeSet(changes.map { $0.entity == nil ? .deletion($0.id) : .upsert($0.id) })
  }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.table == rhs.table && lhs.changes == rhs.changes && (lhs.judge == nil) == (rhs.judge == nil)
  }
}

extension EntityStore {
  /// Applies other writers' changes without recording them (hydration): they are not
  /// written back. An entity takes its place by the position its row carries (new, or moved by
  /// its writer), so that every app on the table holds the same order; a change without a
  /// position leaves the entity in place (a new one goes last).
  ///
  /// A change this app has already seen (its own write, or an older version) is skipped. So is
  /// a row with a local change still waiting for a flush: the local value stays in the state,
  /// and the flush reports the conflict (a ``PersistenceConflict``), to be resolved with the
  /// backend's `resolve(_:keeping:)` or `keepTheirs(_:in:)`. Apply them in an action of their
  /// own, not after edits of the same store in one reduce.
  ///
  /// - Parameter remote: Changes delivered by a change feed.
  /// - Returns: The ids left alone because a local change to them waits for a flush.
  /// - Complexity: O(*c*) amortized, the changes; O(*n* log *n*) when one of them moved an
  ///   entity or placed a new one (the store is ordered by position again).
  @discardableResult
  public mutating func apply(_ remote: RemoteChanges<Entity>) -> [Entity.ID] {
    // NB: the positions before the changes are applied, to tell which of them move an entity.
    let before = remote.judge.map { $0.positions(remote.changes.map(\.id)) }
    let applied = remote.verdicts.judge(remote.changes.count) {
      guard let judge = remote.judge else {
        return Array(repeating: true, count: remote.changes.count)
      }
      return remote.changes.map(judge.verdict)
    }
    var heldBack: [Entity.ID] = []
    var written: [Entity] = []
    var moves = false
    for offset in remote.changes.indices {
      let change = remote.changes[offset]
      guard applied[offset] else {
        // NB: news held back, or seen already: only the former is told (the versions know).
        if remote.judge?.isQueued(change.id) == true { heldBack.append(change.id) }
        continue
      }
      guard let entity = change.entity else {
        removeWithoutRecording(change.id)
        continue
      }
      if let position = change.position, let before, before[offset] != position {
        moves = true
      }
      written.append(entity)
    }
    if !written.isEmpty {
      merge(from: EntityStore(written)) { _, incoming in incoming }
    }
    if moves, let judge = remote.judge { order(by: judge) }
    return heldBack
  }

  /// Puts the entities in the order of their rows' positions, recording nothing; entities
  /// without a known position keep their place after the ones before them.
  ///
  /// - Complexity: O(*n*) when already in order, O(*n* log *n*) otherwise.
  private mutating func order(by judge: RemoteChanges<Entity>.Judge) {
    let known = judge.positions(ids)
    var isOrdered = true
    var last = -Double.infinity
    var positions: [ID: Double] = [:]
    positions.reserveCapacity(count)
    var offset = 0
    for entity in self {
      // NB: an entity with no known position counts as placed where the one before it is.
      let position = known[offset] ?? last
      if position < last { isOrdered = false }
      last = position
      positions[entity.id] = position
      offset += 1
    }
    guard !isOrdered else { return }
    sortWithoutRecording { positions[$0.id]! < positions[$1.id]! }
  }
}

extension RemoteChanges.Change: Codable where Entity: Codable, Entity.ID: Codable {}

extension RemoteChanges: Codable where Entity: Codable, Entity.ID: Codable {
  private enum CodingKeys: String, CodingKey {
    case table, changes, applied
  }

  /// Encodes the changes and which of them were applied (all, for resolved conflicts), so
  /// that a decoded delivery (a recorded session, replayed) applies the same ones.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(table, forKey: .table)
    try container.encode(changes, forKey: .changes)
    try container.encodeIfPresent(verdicts.recorded, forKey: .applied)
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      table: try container.decode(String.self, forKey: .table),
      changes: try container.decode([Change].self, forKey: .changes),
      applied: try container.decodeIfPresent([Bool].self, forKey: .applied))
  }
}
