/// How one entity's value changed between two recordings: what a dependency judges, and what a
/// patch folds into a cached value.
///
/// ```swift
/// switch change {
/// case .insertion(let card): print("added", card.title)
/// case .update(let old, let new): print("edited", old.title, "->", new.title)
/// case .deletion(let card): print("deleted", card.title)
/// }
/// count += change.countChange { $0.columnID == todo }   // +1, 0 or -1
/// ```
///
/// A value recorded again unchanged makes no change: an update's two values always differ.
public enum EntityValueChange<Entity: Identifiable & Equatable & Sendable>: Sendable
where Entity.ID: Sendable {
  /// The entity was not there and now is.
  case insertion(Entity)
  /// The entity changed from the first value to the second (they differ).
  case update(from: Entity, to: Entity)
  /// The entity was there, with this value, and now is not.
  case deletion(Entity)

  /// The id of the entity that changed.
  public var id: Entity.ID {
    switch self {
    case .insertion(let entity), .deletion(let entity): entity.id
    case .update(_, let new): new.id
    }
  }

  /// The value before the change, or `nil` for an insertion.
  public var oldValue: Entity? {
    switch self {
    case .insertion: nil
    case .update(let old, _), .deletion(let old): old
    }
  }

  /// The value after the change, or `nil` for a deletion.
  public var newValue: Entity? {
    switch self {
    case .insertion(let new), .update(_, let new): new
    case .deletion: nil
    }
  }

  /// How the change moves a count of the entities that satisfy `isCounted`: `+1` when it now
  /// counts and did not, `-1` when it counted and no longer does, `0` otherwise.
  ///
  /// ```swift
  /// .patch("todoCount", as: Int.self, where: { $0.columnID == todo }) { count, change in
  ///   count += change.countChange { $0.columnID == todo }
  /// }
  /// ```
  ///
  /// - Parameter isCounted: Whether a value counts.
  /// - Returns: The difference the change makes to the count.
  /// - Throws: What `isCounted` throws.
  public func countChange(where isCounted: (Entity) throws -> Bool) rethrows -> Int {
    let before = try oldValue.map(isCounted) ?? false
    let after = try newValue.map(isCounted) ?? false
    return (after ? 1 : 0) - (before ? 1 : 0)
  }
}

extension EntityValueChange: Equatable {}
