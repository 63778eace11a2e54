import ReduxKit

/// Applies board actions to the state. Total: an action naming a card or column that does not
/// exist changes nothing (the command layer checks ids first and tells the user).
let boardReducer = AnyReducer<BoardState, BoardAction>(id: "board") { context in
  // NB: completed, so that its timing reaches the log (and the DevTools page).
  defer { context.complete() }
  let (state, action) = context.args
  switch action {
  case .addCard(let id, let columnID, let title, let now):
    guard state.columns[columnID] != nil else { return }
    state.cards[id] = Card(id: id, columnID: columnID, title: title, createdAt: now, updatedAt: now)
  case .editCard(let id, let edits, let now):
    state.cards.modify(id) { card in
      for edit in edits {
        switch edit {
        case .title(let title): card.title = title
        case .notes(let notes): card.notes = notes
        case .tags(let tags): card.tags = tags
        case .due(let due): card.due = due
        }
      }
      card.updatedAt = now
    }
  case .moveCard(let id, let columnID, let now):
    guard var card = state.cards[id], state.columns[columnID] != nil, card.columnID != columnID
    else { return }
    card.columnID = columnID
    card.updatedAt = now
    // NB: removed, then inserted: the card goes last in its new column.
    state.cards[id] = nil
    state.cards[id] = card
  case .deleteCard(let id):
    state.cards[id] = nil
  case .addColumn(let id, let name):
    state.columns[id] = Column(id: id, name: name)
  case .renameColumn(let id, let name):
    state.columns.modify(id) { $0.name = name }
  case .deleteColumn(let id):
    guard !state.cards.contains(where: { $0.columnID == id }) else { return }
    state.columns[id] = nil
  case .undo, .redo:
    break  // boardHistory handles them
  case .travelResumed:
    break  // the persistence reducer, last, saves what the travel changed
  case .serverBoard(let columns, let cards):
    // NB: restored, so that the differences are recorded: the query invalidation sees them.
    state.columns.restore(from: columns)
    state.cards.restore(from: cards)
  case .remoteColumns(let changes):
    state.columns.apply(changes)
    // NB: another board's change is not this board's to undo: the snapshots hold it too.
    state.undoHistory.rebase { $0.columns.apply(changes) }
  case .remoteCards(let changes):
    state.cards.apply(changes)
    state.undoHistory.rebase { $0.cards.apply(changes) }
  }
}

/// Undo and redo over every board change, placed before ``boardReducer``.
let boardHistory = AnyReducer<BoardState, BoardAction>.undoHistory { action in
  switch action {
  case .undo: .undo
  case .redo: .redo
  case .serverBoard, .remoteColumns, .remoteCards, .travelResumed: .ignore
  default: .record
  }
}
