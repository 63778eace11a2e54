public import EntityTracking

/// Other instances' changes to one table, as the ``ChangeFeed`` read them: the payload of an
/// app action marked as remote. A reducer applies them with `EntityStore.apply(_:)`.
///
/// ```swift
/// enum AppAction { case cardsChanged(RemoteChanges<Card>), … }
/// case .cardsChanged(let changes): state.cards.apply(changes)
/// ```
public struct RemoteChanges<Entity: Codable & Identifiable & Equatable & Sendable>: Sendable,
  Equatable
where Entity.ID: LosslessStringConvertible & Sendable {
  /// One row's change: its latest value, or its deletion.
  public struct Change: Sendable, Equatable {
    /// The entity's id.
    public let id: Entity.ID
    /// The row's value, or `nil` when it was deleted.
    public let entity: Entity?
    /// The row's version after the change.
    public let version: Int64
    /// The instance that made it.
    public let origin: String
  }

  /// The table's name.
  public let table: String
  /// The changes, in commit order, one per row.
  public let changes: [Change]
  let book: VersionBook
  /// Whether they are the server's rows of resolved conflicts: applied whatever the versions.
  var resolvesConflicts = false

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.table == rhs.table && lhs.changes == rhs.changes
      && lhs.resolvesConflicts == rhs.resolvesConflicts
  }
}

extension EntityStore
where Entity: Codable, Entity.ID: LosslessStringConvertible {
  /// Applies other instances' changes without recording them (hydration): they are not
  /// written back. A new entity goes last; a changed one stays in place.
  ///
  /// A change this instance has already seen (its own write, or an older version) is skipped.
  /// So is a row with a local change still waiting for a flush: the local value stays in the
  /// state, and the flush reports the conflict (``PostgresBackendError/conflicts(_:)``), to
  /// be resolved with ``PostgresBackend/resolve(_:keeping:)``. Apply them in an action of
  /// their own, not after edits of the same store in one reduce.
  ///
  /// - Parameter remote: Changes delivered by a ``ChangeFeed``.
  /// - Returns: The ids left alone because a local change to them waits for a flush.
  @discardableResult
  public mutating func apply(_ remote: RemoteChanges<Entity>) -> [Entity.ID] {
    var heldBack: [Entity.ID] = []
    var written: [Entity] = []
    for change in remote.changes where remote.resolvesConflicts {
      if let entity = change.entity {
        written.append(entity)
      } else {
        removeWithoutRecording(change.id)
      }
    }
    for change in remote.changes where !remote.resolvesConflicts {
      let verdict = remote.book.applyRemote(
        remote.table, id: "\(change.id)", version: change.version,
        isDeletion: change.entity == nil)
      switch verdict {
      case .alreadySeen: continue
      case .heldBack:
        heldBack.append(change.id)
        continue
      case .apply: break
      }
      if let entity = change.entity {
        written.append(entity)
      } else {
        removeWithoutRecording(change.id)
      }
    }
    if !written.isEmpty {
      merge(from: EntityStore(written)) { _, incoming in incoming }
    }
    return heldBack
  }
}
