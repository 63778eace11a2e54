// What README.md's "Persistence in one screen" takes as given.
import Foundation
import ReduxKit

struct Note: Identifiable, Codable, Equatable, Sendable {
  var id: Int
  var text: String
}

@MainActor @Observable
final class AppState: ReduxState {
  var notes: EntityStore<Note>
  init(notes: EntityStore<Note>) { self.notes = notes }
}

enum AppAction: ReduxAction {
  case add(Note)
}

let path = NSTemporaryDirectory() + "readme-notes.sqlite"
let appReducer = AnyReducer<AppState, AppAction>(id: "notes") { context in
  if case .add(let note) = context.action { context.state.notes[note.id] = note }
}
