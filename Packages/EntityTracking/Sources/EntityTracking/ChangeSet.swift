/// Which entity ids changed since the changes were last drained: upserted or deleted.
///
/// The last operation on an id wins: an upsert removes the id from ``deletions`` and a deletion
/// removes it from ``upserts``, so an id is never in both.
public struct ChangeSet<ID: Hashable & Sendable>: Sendable, Equatable {
  /// Ids inserted or replaced (persist their current value).
  public private(set) var upserts: Set<ID>
  /// Ids deleted (remove them from storage).
  public private(set) var deletions: Set<ID>

  /// An empty change set.
  public init() {
    upserts = []
    deletions = []
  }

  /// A change set with these ids; an id in both counts as upserted (the later operation).
  public init(upserts: Set<ID>, deletions: Set<ID>) {
    self.upserts = upserts
    self.deletions = deletions.subtracting(upserts)
  }

  /// Whether nothing changed.
  public var isEmpty: Bool { upserts.isEmpty && deletions.isEmpty }

  /// Records that `id` was inserted or replaced.
  public mutating func recordUpsert(_ id: ID) {
    deletions.remove(id)
    upserts.insert(id)
  }

  /// Records that `id` was deleted.
  public mutating func recordDeletion(_ id: ID) {
    upserts.remove(id)
    deletions.insert(id)
  }

  /// Folds a later change set into this one, the later operation winning for each id.
  ///
  /// - Complexity: O(*m*), where *m* is the number of ids in `later`.
  public mutating func formUnion(_ later: ChangeSet) {
    for id in later.deletions { recordDeletion(id) }
    for id in later.upserts { recordUpsert(id) }
  }
}
