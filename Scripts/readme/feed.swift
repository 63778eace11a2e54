// What README.md's change-feed example takes as given.
import ReduxKit

struct Note: Identifiable, Codable, Equatable, Sendable {
  var id: Int
  var text: String
}

@MainActor @Observable
final class AppState: ReduxState {
  var notes = EntityStore<Note>()
}

enum AppAction: ReduxAction {
  case notesChanged(RemoteChanges<Note>)
}

let notes = EntityTable<Note>("notes")
let database: SQLiteDatabase = readmeUnavailable()
let store = Store(
  initialState: AppState(),
  reducers: [
    AnyReducer<AppState, AppAction>(id: "notes") { context in
      if case .notesChanged(let changes) = context.action { context.state.notes.apply(changes) }
    }
  ])
