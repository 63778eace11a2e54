/// A bounded undo/redo history of snapshots: a value kept in the app's state.
///
/// The history holds snapshots of the undoable part of the state. Recording one before an edit
/// lets ``undo(from:)`` hand it back later; the snapshot undo replaces goes to the redo side,
/// for ``redo(from:)``. At most ``capacity`` snapshots are kept, undo and redo sides together:
/// recording beyond it drops the oldest. Recording after an undo clears the redo side.
///
/// ```swift
/// var history = UndoHistory<[String]>(capacity: 2)
/// var items = ["a"]
/// history.record(items); items.append("b")
/// history.record(items); items.append("c")
/// history.record(items); items.append("d")        // the oldest snapshot, ["a"], is dropped
/// items = history.undo(from: items) ?? items      // ["a", "b", "c"]
/// items = history.undo(from: items) ?? items      // ["a", "b"]
/// history.undo(from: items)                       // nil: lastOutcome is .nothingToUndo
/// items = history.redo(from: items) ?? items      // ["a", "b", "c"]
/// ```
///
/// A store keeps it in its state and drives it with the reducer
/// ``AnyReducer/undoHistory(id:classify:)``: see ``UndoableState``.
///
/// Snapshots are values, so a history of copy-on-write values (arrays, `EntityStore`s) shares
/// their storage with the state until the state changes: recording costs O(1), and the first
/// edit of the state after it copies what it edits. Each snapshot kept holds that memory until
/// it is dropped.
public struct UndoHistory<Snapshot: Sendable>: Sendable {
  /// The most snapshots kept, undo and redo sides together; 1 or more.
  public let capacity: Int

  /// What the initializer changed to bring its argument into range, one sentence each; empty
  /// when it was in range. ``AnyReducer/undoHistory(id:classify:)`` reports them through the
  /// store's `onLog` as ``Store/Event/adjusted(_:)`` (standard error without `onLog`), once.
  public let adjustments: [String]

  /// What the last call to ``record(_:coalescingKey:)``, ``undo(from:)`` or ``redo(from:)``
  /// did, or `nil` before the first one and after ``removeAll()``.
  ///
  /// After dispatching an undo, it tells the app whether there was anything to undo:
  ///
  /// ```swift
  /// let state = await store.dispatchWithResult(.undo)
  /// if state.history.lastOutcome == .nothingToUndo { show("Nothing to undo") }
  /// ```
  public private(set) var lastOutcome: UndoOutcome?

  /// The snapshots, in a ring of at most `capacity` slots: the undo side (oldest first), then
  /// the redo side (the next redo first). `nil` marks a slot not in use.
  private var slots: [Snapshot?]
  /// The slot of the oldest snapshot.
  private var oldestSlot: Int
  /// The number of snapshots kept, undo and redo sides together.
  private var entryCount: Int
  /// The number of snapshots on the undo side; the first `undoCount` entries.
  public private(set) var undoCount: Int
  /// The coalescing key of the newest snapshot, while it may absorb the next record: cleared
  /// by every other record, undo, redo or removal.
  private var openCoalescingKey: String?
  /// Whether ``AnyReducer/undoHistory(id:classify:)`` still has to report `adjustments`.
  var reportsAdjustments: Bool

  /// An empty history keeping at most `capacity` snapshots.
  ///
  /// An argument out of range does not trap: it is clamped, and ``adjustments`` says how.
  ///
  /// - Parameter capacity: The most snapshots kept, undo and redo sides together; 1 or more (a
  ///   smaller one is 1).
  public init(capacity: Int) {
    self.capacity = max(capacity, 1)
    adjustments =
      capacity < 1 ? ["UndoHistory: capacity \(capacity) keeps nothing; using 1"] : []
    reportsAdjustments = capacity < 1
    lastOutcome = nil
    slots = []
    oldestSlot = 0
    entryCount = 0
    undoCount = 0
    openCoalescingKey = nil
  }

  // MARK: - Reading

  /// The number of snapshots on the redo side.
  public var redoCount: Int { entryCount - undoCount }

  /// Whether ``undo(from:)`` has a snapshot to return.
  public var canUndo: Bool { undoCount > 0 }

  /// Whether ``redo(from:)`` has a snapshot to return.
  public var canRedo: Bool { entryCount > undoCount }

  // MARK: - Recording, undoing, redoing

  /// Records `snapshot`, the state before an edit, as the next one to undo, and clears the
  /// redo side. When the history is full, the oldest snapshot is dropped.
  ///
  /// With a `coalescingKey`, successive records with the same key make one entry: while the
  /// newest entry was recorded with that key and nothing was recorded, undone or redone since,
  /// `snapshot` is not kept, so one undo goes back to the state before the first edit of the
  /// run (typing a title letter by letter, say). Sets ``lastOutcome`` to
  /// ``UndoOutcome/recorded`` or ``UndoOutcome/coalesced``.
  ///
  /// - Parameters:
  ///   - snapshot: The undoable part of the state, as it is before the edit.
  ///   - coalescingKey: Joins this record to the newest entry if that one was recorded with the
  ///     same key just before; `nil` never joins.
  /// - Complexity: O(1) amortized: a snapshot cleared from the redo side was put there by one
  ///   undo.
  public mutating func record(_ snapshot: Snapshot, coalescingKey: String? = nil) {
    if let coalescingKey, coalescingKey == openCoalescingKey {
      lastOutcome = .coalesced
      return
    }
    for entry in undoCount..<entryCount { slots[slot(of: entry)] = nil }
    entryCount = undoCount
    if entryCount == capacity {
      // NB: full: the newest snapshot takes the oldest one's slot, which becomes the newest.
      slots[oldestSlot] = snapshot
      oldestSlot = (oldestSlot + 1) % capacity
    } else {
      let newSlot = slot(of: entryCount)
      if newSlot == slots.count {
        slots.append(snapshot)
      } else {
        slots[newSlot] = snapshot
      }
      entryCount += 1
      undoCount += 1
    }
    openCoalescingKey = coalescingKey
    lastOutcome = .recorded
  }

  /// Takes the newest snapshot of the undo side, to restore, and keeps `present` in its place
  /// for ``redo(from:)``. With nothing to undo, changes nothing but ``lastOutcome``.
  ///
  /// - Parameter present: The undoable part of the state as it is now.
  /// - Returns: The snapshot to restore, or `nil` when there is nothing to undo (then
  ///   ``lastOutcome`` is ``UndoOutcome/nothingToUndo``; otherwise ``UndoOutcome/undone``).
  @discardableResult
  public mutating func undo(from present: Snapshot) -> Snapshot? {
    openCoalescingKey = nil
    guard undoCount > 0 else {
      lastOutcome = .nothingToUndo
      return nil
    }
    undoCount -= 1
    lastOutcome = .undone
    return exchange(entry: undoCount, with: present)
  }

  /// Takes the next snapshot of the redo side, to restore, and keeps `present` in its place
  /// for ``undo(from:)``. With nothing to redo, changes nothing but ``lastOutcome``.
  ///
  /// - Parameter present: The undoable part of the state as it is now.
  /// - Returns: The snapshot to restore, or `nil` when there is nothing to redo (then
  ///   ``lastOutcome`` is ``UndoOutcome/nothingToRedo``; otherwise ``UndoOutcome/redone``).
  @discardableResult
  public mutating func redo(from present: Snapshot) -> Snapshot? {
    openCoalescingKey = nil
    guard undoCount < entryCount else {
      lastOutcome = .nothingToRedo
      return nil
    }
    undoCount += 1
    lastOutcome = .redone
    return exchange(entry: undoCount - 1, with: present)
  }

  /// Applies `change` to every snapshot kept, undo and redo sides: for a change made by
  /// someone else (another process's or instance's edit applied to the state), which an undo
  /// must not revert. ``lastOutcome`` and the coalescing stay as they were.
  ///
  /// ```swift
  /// state.cards.apply(remote)
  /// state.history.rebase { $0.cards.apply(remote) }
  /// ```
  ///
  /// - Parameter change: Changes one snapshot in place.
  /// - Complexity: O(*k*) calls of `change`, where *k* is the number of snapshots kept.
  public mutating func rebase(_ change: (inout Snapshot) throws -> Void) rethrows {
    for index in slots.indices where slots[index] != nil {
      try change(&slots[index]!)
    }
  }

  /// Forgets every snapshot (after loading another document, say); ``lastOutcome`` becomes
  /// `nil`. The capacity stays.
  ///
  /// - Complexity: O(*k*), where *k* is the number of snapshots kept.
  public mutating func removeAll() {
    slots = []
    oldestSlot = 0
    entryCount = 0
    undoCount = 0
    openCoalescingKey = nil
    lastOutcome = nil
  }

  // MARK: - Ring

  /// The slot of entry `entry`, counted from the oldest.
  private func slot(of entry: Int) -> Int {
    (oldestSlot + entry) % capacity
  }

  /// Puts `present` in the slot of `entry` and returns the snapshot that was there.
  private mutating func exchange(entry: Int, with present: Snapshot) -> Snapshot {
    let slot = slot(of: entry)
    guard let snapshot = slots[slot] else {
      preconditionFailure(
        "UndoHistory: entry \(entry) (slot \(slot)) is empty with \(entryCount) entries, "
          + "\(undoCount) to undo, the oldest in slot \(oldestSlot) of \(slots.count)")
    }
    slots[slot] = present
    return snapshot
  }
}
