/// What an ``UndoHistory`` did last: its ``UndoHistory/lastOutcome``.
public enum UndoOutcome: Hashable, Sendable, CustomStringConvertible {
  /// A snapshot was recorded (and, if the history was full, the oldest one dropped).
  case recorded
  /// A record joined the newest entry, recorded with the same coalescing key.
  case coalesced
  /// A snapshot was taken from the undo side to be restored.
  case undone
  /// A snapshot was taken from the redo side to be restored.
  case redone
  /// An undo found nothing to undo; nothing changed.
  case nothingToUndo
  /// A redo found nothing to redo; nothing changed.
  case nothingToRedo

  /// The outcome in words, for a status message.
  public var description: String {
    switch self {
    case .recorded: "recorded"
    case .coalesced: "coalesced"
    case .undone: "undone"
    case .redone: "redone"
    case .nothingToUndo: "nothing to undo"
    case .nothingToRedo: "nothing to redo"
    }
  }
}
