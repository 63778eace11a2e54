public import Synchronization

/// What one app (a process on a SQLite file, an instance on PostgreSQL) knows of the versions
/// of one table's rows: the version it last saw of each (loaded, wrote, or received from
/// another writer), and, for each row with a local change waiting for a flush, the version that
/// change was made against. Rows are keyed by `Key`: the entity's id on SQLite, its text on
/// PostgreSQL. A ``VersionBook`` holds one per table.
///
/// It is the one conflict model of every backend: a writer records each drained change
/// (``queued(_:)``); a flush asks for the base version of each row it writes (``bases(_:)``),
/// writes each row only at that version, reports a row found at another version as a
/// ``PersistenceConflict``, and records what committed (``committed(_:flushed:dropped:)``); a
/// change feed asks whether another writer's change is news (``applyRemote(_:version:isDeletion:position:)``).
///
/// NB: the two versions differ when another writer's change arrives between a local edit and
/// its flush. The flush must be checked against the version the edit was made against, or it
/// would overwrite the other change without a conflict; so the base is taken when the change
/// is drained from the state (on the main actor, in order with the remote changes applied
/// there), not when the flush runs.
public final class VersionTable<Key: Hashable & Sendable>: Sendable {
  /// The bases of the rows a flush writes, in the order asked for, and the rows whose local
  /// change is dropped (a conflict resolved for the other writer's row).
  public struct FlushBases: Sendable {
    /// The version each row was last seen at, at its offset; `nil`: new to this app.
    public var versions: [Int64?]
    /// Rows whose change is dropped, at the other writer's version (`nil`: it deleted them).
    public var dropped: [Key: Int64?]

    @inlinable
    init(versions: [Int64?], dropped: [Key: Int64?]) {
      self.versions = versions
      self.dropped = dropped
    }
  }

  /// A row a flush wrote or deleted, at its new version.
  public struct Written: Sendable {
    /// The row's key.
    public let key: Key
    /// Its version after the change.
    public let version: Int64
    /// Whether the change deleted it.
    public let isDeletion: Bool

    /// - Parameters:
    ///   - key: The row's key.
    ///   - version: Its version after the change.
    ///   - isDeletion: Whether it was deleted.
    public init(key: Key, version: Int64, isDeletion: Bool) {
      self.key = key
      self.version = version
      self.isDeletion = isDeletion
    }
  }

  /// What to do with a change another writer made.
  public enum RemoteVerdict: Sendable, Equatable {
    /// Apply it: it is news (recorded as seen).
    case apply
    /// Skip it: this app has seen that version or a later one (its own write, say).
    case alreadySeen
    /// Leave the row alone: a local change to it waits for a flush, which will report the
    /// conflict (applying it would hide the local change).
    case heldBack
  }

  @usableFromInline
  struct State {
    @usableFromInline var seen: [Key: Int64] = [:]
    /// Each row's place in the table's order (see ``positions``).
    @usableFromInline var positions: [Key: Double] = [:]
    /// Rows with a local change queued, and the version it was made against (`nil`: new).
    @usableFromInline var queued: [Key: Int64?] = [:] {
      didSet { queueChanges &+= 1 }
    }
    @usableFromInline var dropped: [Key: Int64?] = [:]
    /// How many times ``queued`` changed: a flush that took every queued row knows from it
    /// whether any other change came since.
    @usableFromInline var queueChanges = 0
    /// The flush that took every queued row, and none other: its row count, and
    /// ``queueChanges`` then.
    @usableFromInline var wholeQueue: (rows: Int, changes: Int)?

    @usableFromInline init() {}
  }

  /// The table's name.
  public let name: String
  @usableFromInline let state = Mutex(State())

  /// An empty table: every row is new to it.
  ///
  /// - Parameter name: The table's name.
  public init(_ name: String) {
    self.name = name
  }

  /// Records the versions and positions of the rows just loaded.
  ///
  /// - Parameters:
  ///   - versions: Each row's version.
  ///   - positions: Each row's position (see ``positions``).
  /// - Complexity: O(*n*), the rows loaded.
  public func loaded(_ versions: [Key: Int64], positions: [Key: Double] = [:]) {
    state.withLock { state in
      state.seen = versions
      state.positions = positions
    }
  }

  /// Each row's position in the table's order, as this app last knew it (loaded, placed by a
  /// drain, or received from another writer): rows are stored and loaded in increasing
  /// position, so a store's order is data like its values, and a move writes one row. A
  /// writer's drain keeps them in the store's order (see ``EntityChanges/positions``).
  public var positions: [Key: Double] { state.withLock { $0.positions } }

  /// The position of one row, if known.
  public func position(of key: Key) -> Double? {
    state.withLock { $0.positions[key] }
  }

  /// Runs `body` on the positions, under the table's lock: a drain reads and places many rows
  /// at once.
  @inlinable
  func withPositions<Result>(_ body: (inout [Key: Double]) -> Result) -> Result {
    state.withLock { body(&$0.positions) }
  }

  /// Records that local changes to `keys` were drained: each keeps the version it was first
  /// changed at until a flush commits it.
  ///
  /// - Complexity: O(*c*), the keys.
  ///
  /// NB: inlinable, as the drain that calls it: specialized for the app's key, each key costs
  /// a hashing, not a thousand instructions of generic metadata lookups.
  @inlinable
  public func queued(_ keys: [Key]) {
    state.withLock { state in
      // NB: room made at once: growing a dictionary rehashes every key, which in this
      // unspecialized generic code (the key type is the app's) cost more than the drain.
      state.queued.reserveCapacity(state.queued.count + keys.count)
      for key in keys where state.queued.index(forKey: key) == nil {
        // NB: a key queued already keeps its version. Not `queued[key, default: seen]`:
        // that subscript's accessor allocated (and freed) a context for every key, a third
        // of the queueing; the second lookup of a new key finds its bucket in the cache.
        state.queued[key] = state.seen[key]
      }
    }
  }

  /// Forgets the local changes to `keys` without a flush (the app discarded them): another
  /// writer's changes to those rows are news again.
  public func unqueued(_ keys: [Key]) {
    state.withLock { state in
      for key in keys { state.queued[key] = nil }
    }
  }

  /// The bases of the rows a flush writes or deletes, in the order of `keys`.
  ///
  /// - Parameter keys: The flush's rows, each once (a writer's batch coalesces its changes by
  ///   id); ``committed(_:flushed:dropped:)`` then names the same ones.
  /// - Complexity: O(*c*), the keys.
  @inlinable
  public func bases(_ keys: [Key]) -> FlushBases {
    state.withLock { state in
      var bases = FlushBases(versions: [], dropped: [:])
      bases.versions.reserveCapacity(keys.count)
      var queued = 0
      for key in keys {
        let base: Int64?
        if let change = state.queued[key] {
          base = change
          queued += 1
        } else {
          base = state.seen[key]
        }
        bases.versions.append(base)
      }
      // NB: the flush's rows (each once) are every queued row: its commit empties the queue
      // at once, unless another change came meanwhile.
      state.wholeQueue =
        queued == keys.count && queued == state.queued.count
        ? (keys.count, state.queueChanges) : nil
      if !state.dropped.isEmpty {
        for key in keys {
          if let dropped = state.dropped[key] { bases.dropped[key] = dropped }
        }
      }
      return bases
    }
  }

  /// Records a committed flush: the versions it wrote, and that the rows it took (and the
  /// dropped ones) no longer wait for a flush.
  ///
  /// - Parameters:
  ///   - written: The rows written or deleted, at their new versions.
  ///   - flushed: The keys the flush took: written, dropped or already gone.
  ///   - dropped: The rows the flush skipped, resolved for the other writer.
  /// - Complexity: O(*c*), the rows of the flush.
  @inlinable
  public func committed(
    _ written: [Written], flushed: some Sequence<Key>, dropped: [Key: Int64?]
  ) {
    // NB: copied at once (an array's storage is shared), then walked by index: iterating the
    // sequence, unspecialized, looked its iterator's generic metadata up for every key.
    let flushed = Array(flushed)
    state.withLock { state in
      if let whole = state.wholeQueue, whole == (flushed.count, state.queueChanges) {
        // NB: a removal per row was a third of the bookkeeping of a flush of new rows.
        state.queued.removeAll(keepingCapacity: true)
      } else {
        for index in flushed.indices { state.queued[flushed[index]] = nil }
      }
      state.wholeQueue = nil
      for (key, version) in dropped {
        state.seen[key] = version
        state.dropped[key] = nil
      }
      // NB: room made at once, as in `queued(_:)`.
      state.seen.reserveCapacity(state.seen.count + written.count)
      for index in written.indices {
        let row = written[index]
        state.seen[row.key] = row.isDeletion ? nil : row.version
      }
    }
  }

  /// Resolves a conflict on `key`: with ``ConflictResolution/mine`` the next flush writes over
  /// the other writer's version; with ``ConflictResolution/theirs`` it drops the local change.
  public func resolve(_ key: Key, at currentVersion: Int64?, keeping resolution: ConflictResolution)
  {
    state.withLock { state in
      switch resolution {
      case .mine:
        state.queued[key] = .some(currentVersion)
        state.dropped[key] = nil
      case .theirs:
        state.dropped[key] = .some(currentVersion)
      }
    }
  }

  /// Records another writer's change, if it is news: its version, and the row's position
  /// when the change carries one.
  public func applyRemote(
    _ key: Key, version: Int64, isDeletion: Bool, position: Double? = nil
  ) -> RemoteVerdict {
    state.withLock { state in
      guard state.queued[key] == nil else { return .heldBack }
      if let seen = state.seen[key], seen >= version { return .alreadySeen }
      state.seen[key] = isDeletion ? nil : version
      if isDeletion {
        state.positions[key] = nil
      } else if let position {
        state.positions[key] = position
      }
      return .apply
    }
  }

  /// Whether a local change to the row waits for a flush.
  public func isQueued(_ key: Key) -> Bool {
    state.withLock { $0.queued[key] != nil }
  }

  /// The rows this app has seen, at their versions (a feed that lost its place compares them
  /// with the table's).
  public var seen: [Key: Int64] { state.withLock { $0.seen } }

  /// The key among the rows queued or seen whose description is `text` (a conflict's id):
  /// O(*n*), for the rare path of a resolution by text.
  func key(described text: String) -> Key? {
    // NB: a key that reads its own text (an integer, a string) needs no search.
    if let type = Key.self as? any LosslessStringConvertible.Type,
      let key = type.init(text) as? Key
    {
      return key
    }
    return state.withLock { state in
      state.queued.keys.first { "\($0)" == text } ?? state.seen.keys.first { "\($0)" == text }
    }
  }
}
