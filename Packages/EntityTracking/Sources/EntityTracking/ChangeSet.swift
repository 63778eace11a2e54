/// Which entity ids changed since the changes were last drained: upserted or deleted.
///
/// The last operation on an id wins: an upsert removes the id from ``deletions`` and a deletion
/// removes it from ``upserts``, so an id is never in both.
public struct ChangeSet<ID: Hashable & Sendable>: Sendable, Equatable {
  @usableFromInline var upserted: Set<ID>
  @usableFromInline var deleted: Set<ID>

  /// Ids inserted or replaced (persist their current value).
  @inlinable public var upserts: Set<ID> { upserted }
  /// Ids deleted (remove them from storage).
  @inlinable public var deletions: Set<ID> { deleted }

  /// An empty change set.
  @inlinable
  public init() {
    upserted = []
    deleted = []
  }

  /// A change set with these ids; an id in both counts as upserted (the later operation).
  @inlinable
  public init(upserts: Set<ID>, deletions: Set<ID>) {
    upserted = upserts
    deleted = deletions.subtracting(upserts)
  }

  /// Whether nothing changed.
  @inlinable public var isEmpty: Bool { upserted.isEmpty && deleted.isEmpty }

  /// Records that `id` was inserted or replaced.
  @inlinable
  public mutating func recordUpsert(_ id: ID) {
    if !deleted.isEmpty { deleted.remove(id) }
    upserted.insert(id)
  }

  /// Records that `id` was deleted.
  @inlinable
  public mutating func recordDeletion(_ id: ID) {
    if !upserted.isEmpty { upserted.remove(id) }
    deleted.insert(id)
  }

  /// Folds a later change set into this one, the later operation winning for each id.
  ///
  /// - Complexity: O(*m*), where *m* is the number of ids in `later`.
  public mutating func formUnion(_ later: ChangeSet) {
    for id in later.deletions { recordDeletion(id) }
    for id in later.upserts { recordUpsert(id) }
  }
}
