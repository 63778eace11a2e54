/// Which entity ids changed, in the order they first changed, each with its last operation: an
/// upsert or a deletion.
///
/// ```swift
/// var changes = ChangeSet<Int>()
/// changes.recordUpsert(1)
/// changes.recordUpsert(2)
/// changes.recordDeletion(1)     // 1 keeps its place; the deletion wins
/// Array(changes)                // [.deletion(1), .upsert(2)]
/// changes.upserts               // [2]
/// ```
///
/// The last operation on an id wins and the id keeps the place of its first change: a deletion
/// after an upsert makes the id a deletion, an upsert after a deletion makes it an upsert, so an id
/// is never both. ``formUnion(_:)`` folds a later change set in by the same rule, so folding the
/// change sets of two successive drains gives the change set one drain over both periods would
/// have given.
///
/// A change set is a `RandomAccessCollection` of its changes in first-change order (an `Array`
/// underneath, so every collection operation is O(1) as `Array`'s is), and looks an id up in O(1)
/// with ``change(for:)``. Two change sets are equal when they hold the same changes in the same
/// order.
public struct ChangeSet<ID: Hashable & Sendable>: Sendable {
  /// One id's change: the last operation recorded for it.
  public enum Change: Hashable, Sendable {
    /// The id was inserted or replaced: persist its current value.
    case upsert(ID)
    /// The id was deleted: remove it from storage.
    case deletion(ID)

    /// The id that changed.
    @inlinable
    public var id: ID {
      switch self {
      case .upsert(let id), .deletion(let id): id
      }
    }
  }

  /// The changes in first-change order, each id once.
  @usableFromInline var entries: [Change]
  /// The offset in `entries` of every id once there are more than `linearSearchLimit`
  /// entries; empty until then, when a linear search is cheaper than hashing (a drain after one
  /// reduce usually holds a few changes, and builds no index).
  @usableFromInline var offsets: [ID: Int]

  /// The most entries searched linearly; a larger change set keeps a hash index.
  @inlinable static var linearSearchLimit: Int { 16 }

  /// An empty change set.
  @inlinable
  public init() {
    entries = []
    offsets = [:]
  }

  /// A change set recording `changes` in order: an id listed twice keeps the place of its first
  /// change and the operation of its last.
  ///
  /// - Parameter changes: The changes, earliest first.
  /// - Complexity: O(*m*), where *m* is the number of changes given.
  @inlinable
  public init(_ changes: some Sequence<Change>) {
    self.init()
    for change in changes { record(change) }
  }

  /// A change set over changes already known to name each id once (a store's change log).
  ///
  /// - Complexity: O(*c*), where *c* is the number of changes.
  @inlinable
  init(uniqueChanges: [Change]) {
    entries = uniqueChanges
    offsets = [:]
    if entries.count > Self.linearSearchLimit { buildIndex() }
  }

  /// The upserted ids (persist their current values), in first-change order.
  ///
  /// - Complexity: O(*c*), where *c* is the number of changes.
  @inlinable
  public var upserts: [ID] {
    entries.compactMap { change in
      guard case .upsert(let id) = change else { return nil }
      return id
    }
  }

  /// The deleted ids (remove them from storage), in first-change order.
  ///
  /// - Complexity: O(*c*), where *c* is the number of changes.
  @inlinable
  public var deletions: [ID] {
    entries.compactMap { change in
      guard case .deletion(let id) = change else { return nil }
      return id
    }
  }

  /// The change recorded for `id`, or `nil` if `id` did not change.
  ///
  /// - Parameter id: The id to look up.
  /// - Returns: `.upsert(id)` or `.deletion(id)`, whichever was recorded last, or `nil`.
  @inlinable
  public func change(for id: ID) -> Change? {
    offset(of: id).map { entries[$0] }
  }

  /// Records that `id` was inserted or replaced: a new id goes last, a known one keeps its place
  /// and becomes an upsert.
  ///
  /// - Parameter id: The id that changed.
  /// - Complexity: O(1) amortized.
  @inlinable
  public mutating func recordUpsert(_ id: ID) {
    record(.upsert(id))
  }

  /// Records that `id` was deleted: a new id goes last, a known one keeps its place and becomes a
  /// deletion.
  ///
  /// - Parameter id: The id that changed.
  /// - Complexity: O(1) amortized.
  @inlinable
  public mutating func recordDeletion(_ id: ID) {
    record(.deletion(id))
  }

  /// Folds a later change set into this one: each of its changes is recorded in its order, so
  /// ids already here keep their place and take the later operation, and ids new in `later`
  /// follow in `later`'s order.
  ///
  /// - Parameter later: Changes made after the ones in this set.
  /// - Complexity: O(*m*) amortized, where *m* is the number of changes in `later`.
  @inlinable
  public mutating func formUnion(_ later: ChangeSet) {
    for change in later.entries { record(change) }
  }

  /// Where `id` is in `entries`, if anywhere.
  @inlinable
  func offset(of id: ID) -> Int? {
    guard entries.count > Self.linearSearchLimit else {
      return entries.firstIndex { $0.id == id }
    }
    return offsets[id]
  }

  @inlinable
  mutating func record(_ change: Change) {
    let end = entries.count
    guard end >= Self.linearSearchLimit else {
      if let offset = entries.firstIndex(where: { $0.id == change.id }) {
        entries[offset] = change
      } else {
        entries.append(change)
      }
      return
    }
    if end == Self.linearSearchLimit {
      if let offset = entries.firstIndex(where: { $0.id == change.id }) {
        entries[offset] = change
        return
      }
      buildIndex()
    }
    // NB: one hash lookup serves both paths: the defaulted subscript inserts the key if absent.
    let offset = Self.claim(&offsets[change.id, default: end])
    if offset == end {
      entries.append(change)
    } else {
      entries[offset] = change
    }
  }

  /// Indexes every entry, once the set has outgrown linear search.
  ///
  /// NB: inlinable, as its callers: a drain specialized for the app's entity indexes its
  /// changes with the id's own hashing (generic, about 1,600 instructions a change).
  @inlinable
  mutating func buildIndex() {
    offsets = Dictionary(minimumCapacity: entries.count + 1)
    // NB: indices, not `enumerated()`: run unspecialized (a generic type's method called from
    // another module), the enumerated iterator looked up its generic metadata for every entry.
    for offset in entries.indices { offsets[entries[offset].id] = offset }
  }

  @inlinable
  static func claim(_ offset: inout Int) -> Int {
    offset
  }
}
