/// What an action means to the undo history; an app's `classify` closure, given to
/// ``AnyReducer/undoHistory(id:classify:)``, returns one for every action.
///
/// ```swift
/// AnyReducer<BoardState, BoardAction>.undoHistory { action in
///   switch action {
///   case .undo: .undo
///   case .redo: .redo
///   case .rename(let id, _): .recordCoalescing("rename \(id)")
///   case .add, .move, .delete: .record
///   case .select: .ignore
///   }
/// }
/// ```
public enum UndoIntent: Hashable, Sendable {
  /// The action edits the undoable part: record a snapshot of it before the action is reduced.
  case record
  /// As ``record``, but successive actions with the same key make one entry, undone at once
  /// (see ``UndoHistory/record(_:coalescingKey:)``).
  case recordCoalescing(String)
  /// Restore the newest snapshot of the undo side.
  case undo
  /// Restore the next snapshot of the redo side.
  case redo
  /// The action does not touch the history (a selection, a fetch result, a persistence
  /// status): the history is not even read.
  case ignore
}
