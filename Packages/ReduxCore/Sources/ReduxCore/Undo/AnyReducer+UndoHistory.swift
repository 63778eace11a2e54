extension AnyReducer where State: UndoableState {
  /// The reducer that records, undoes and redoes the state's ``UndoableState/undoHistory``.
  /// Place it first among the store's reducers, so that it records the state before the app's
  /// reducers change it.
  ///
  /// ```swift
  /// let store = Store(
  ///   initialState: BoardState(),
  ///   reducers: [
  ///     .undoHistory { action in
  ///       switch action {
  ///       case .undo: .undo
  ///       case .redo: .redo
  ///       case .add, .move, .delete: .record
  ///       }
  ///     },
  ///     boardReducer,   // ignores .undo and .redo
  ///   ])
  /// let state = await store.dispatchWithResult(.undo)
  /// if state.undoHistory.lastOutcome == .nothingToUndo { show("Nothing to undo") }
  /// ```
  ///
  /// For each action, by what `classify` returns:
  /// - ``UndoIntent/record`` and ``UndoIntent/recordCoalescing(_:)``: records
  ///   ``UndoableState/undoSnapshot`` with ``UndoHistory/record(_:coalescingKey:)``. The
  ///   app's reducers then apply the action. An action recorded that changes nothing still
  ///   makes an entry, which undoes nothing: classify as `record` only what edits the part.
  /// - ``UndoIntent/undo`` and ``UndoIntent/redo``: takes a snapshot from the history in
  ///   exchange for the present one and passes it to ``UndoableState/restoreUndoSnapshot(_:)``.
  ///   With nothing to undo (or redo), the state is left as it is and
  ///   ``UndoHistory/lastOutcome`` says so.
  /// - ``UndoIntent/ignore``: nothing; the history is not read, so Observation sees no access.
  ///
  /// The first time it changes a history whose ``UndoHistory/adjustments`` are not empty, it
  /// reports them through the store's `onLog` as ``Store/Event/adjusted(_:)`` (on standard
  /// error without `onLog`).
  ///
  /// - Parameters:
  ///   - id: The reducer's identity in logs.
  ///   - classify: What each action means to the history. It runs on the main actor for every
  ///     action the reducers see; keep it a `switch`.
  /// - Returns: The reducer.
  /// - Complexity: Per action, O(1) amortized plus `classify` and ``UndoableState/undoSnapshot``;
  ///   an undo or redo adds ``UndoableState/restoreUndoSnapshot(_:)`` (O(*n* + *m*) for an
  ///   `EntityStore` of *n* entities restored to a snapshot of *m*).
  public static func undoHistory(
    id: String = "undoHistory",
    classify: @escaping @Sendable (Action) -> UndoIntent
  ) -> AnyReducer {
    AnyReducer(id: id) { context in
      defer { context.complete() }
      let (state, action) = context.args
      let intent = classify(action)
      if case .ignore = intent { return }
      if state.undoHistory.reportsAdjustments {
        state.undoHistory.reportsAdjustments = false
        for adjustment in state.undoHistory.adjustments {
          context.reportAdjustment(adjustment)
        }
      }
      let present = state.undoSnapshot
      switch intent {
      case .ignore:
        break
      case .record:
        state.undoHistory.record(present)
      case .recordCoalescing(let key):
        state.undoHistory.record(present, coalescingKey: key)
      case .undo:
        if let snapshot = state.undoHistory.undo(from: present) {
          state.restoreUndoSnapshot(snapshot)
        }
      case .redo:
        if let snapshot = state.undoHistory.redo(from: present) {
          state.restoreUndoSnapshot(snapshot)
        }
      }
    }
  }
}

extension ReducerContext {
  /// Reports an argument clamped into range through the store's `onLog` as
  /// ``Store/Event/adjusted(_:)``, or on standard error without `onLog`.
  @MainActor
  func reportAdjustment(_ adjustment: String) {
    if worker.onLog != nil {
      worker.log(.store(.adjusted(adjustment)))
    } else {
      writeToStandardError("ReduxKit warning: \(adjustment)\n")
    }
  }
}
