// What README.md's DevTools example takes as given.
import DevToolsServer
import Foundation
import ReduxKit

struct Note: Identifiable, Codable, Equatable, Sendable {
  var id: Int
  var text: String
}

@MainActor @Observable
final class AppState: UndoableState {
  typealias UndoSnapshot = EntityStore<Note>
  var notes = EntityStore<Note>()
  var undoHistory = UndoHistory<EntityStore<Note>>(capacity: 100)
  var undoSnapshot: EntityStore<Note> { notes }
  func restoreUndoSnapshot(_ saved: EntityStore<Note>) { notes.restore(from: saved) }

  init() {}
  init(restoring snapshot: EntityStore<Note>) { notes = snapshot }
}

enum AppAction: ReduxAction, Codable {
  case add(Note)
}

let sessionURL = URL(fileURLWithPath: NSTemporaryDirectory() + "notes.jsonl")
let state = AppState()
let reducers = [
  AnyReducer<AppState, AppAction>(id: "notes") { context in
    if case .add(let note) = context.action { context.state.notes[note.id] = note }
  }
]
