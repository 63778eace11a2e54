/// A state that undo and redo can step back and forth: it keeps an ``UndoHistory``, takes
/// snapshots of its undoable part, and restores them.
///
/// A store undoes with the reducer ``AnyReducer/undoHistory(id:classify:)``, placed first
/// among its reducers: before an action classified ``UndoIntent/record`` reaches the app's
/// reducers, it records ``undoSnapshot``; for ``UndoIntent/undo`` and ``UndoIntent/redo`` it
/// swaps the present for a recorded snapshot and hands that to ``restoreUndoSnapshot(_:)``.
///
/// ```swift
/// @MainActor @Observable
/// final class BoardState: UndoableState {
///   var cards = EntityStore<Card>()
///   var undoHistory = UndoHistory<EntityStore<Card>>(capacity: 100)
///
///   var undoSnapshot: EntityStore<Card> { cards }   // O(1): copy-on-write
///   func restoreUndoSnapshot(_ snapshot: EntityStore<Card>) {
///     cards.restore(from: snapshot)                 // records the difference
///   }
/// }
///
/// let store = Store(
///   initialState: BoardState(),
///   reducers: [.undoHistory { $0.undoIntent }, boardReducer])   // the history first
/// ```
///
/// Restore *into* the current value so that change tracking sees the difference: for an
/// `EntityStore`, call `restore(from:)`, which records the deletions, upserts and moves that
/// lead from the present to the snapshot, so that persistence writes the undo and observers of
/// the changes see it. Assigning the snapshot (`cards = snapshot`) would instead bring back the
/// changes recorded in the snapshot when it was taken, and persistence would miss the undo.
///
/// A snapshot may hold several parts (a struct of several `EntityStore`s, say); restore each.
/// Parts of the state outside the snapshot (a selection, a persistence status) are left alone.
@MainActor
public protocol UndoableState: ReduxState {
  /// The undoable part of the state, as a value.
  associatedtype UndoSnapshot: Sendable

  /// The history the undo reducer records into and restores from.
  var undoHistory: UndoHistory<UndoSnapshot> { get set }

  /// The undoable part as it is now. Make it cheap: a copy of copy-on-write values is O(1).
  var undoSnapshot: UndoSnapshot { get }

  /// Puts `snapshot` back as the undoable part, mutating the current values so that their
  /// change tracking records the difference (for an `EntityStore`, `restore(from:)`).
  ///
  /// - Parameter snapshot: A snapshot this state's ``undoSnapshot`` returned earlier.
  func restoreUndoSnapshot(_ snapshot: UndoSnapshot)
}
