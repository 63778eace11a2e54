import DevTools
import Foundation
import Observation
import ReduxCore

/// A small notes app: what the DevTools tests record, replay and travel through.
struct Note: Codable, Equatable, Sendable {
  let id: Int
  var text: String
}

@MainActor
@Observable
final class NotesState: UndoableState {
  var notes: [Note]
  var undoHistory = UndoHistory<[Note]>(capacity: 10)

  init(notes: [Note] = []) {
    self.notes = notes
  }

  var undoSnapshot: [Note] { notes }

  func restoreUndoSnapshot(_ snapshot: [Note]) {
    notes = snapshot
  }
}

enum NotesAction: ReduxAction, Codable {
  case add(id: Int, text: String)
  case edit(id: Int, text: String)
  case delete(id: Int)
  /// Asks the `echo` middleware to add a note of its own.
  case echo(String)
  /// Stopped by the `guard` middleware.
  case forbidden

  var id: String {
    switch self {
    case .add: "add"
    case .edit: "edit"
    case .delete: "delete"
    case .echo: "echo"
    case .forbidden: "forbidden"
    }
  }
}

typealias NotesStore = Store<NotesState, NotesAction>
typealias NotesRecorder = DevToolsRecorder<NotesState, NotesAction, [Note]>

/// The app's reducer. `bug` makes an edit also upper-case the text: the divergence a replay
/// must find when a session recorded with the right reducer is replayed with it.
func notesReducer(bug: Bool = false) -> AnyReducer<NotesState, NotesAction> {
  AnyReducer(id: "notes") { context in
    let (state, action) = context.args
    switch action {
    case .add(let id, let text): state.notes.append(Note(id: id, text: text))
    case .edit(let id, let text):
      if let index = state.notes.firstIndex(where: { $0.id == id }) {
        state.notes[index].text = bug ? text.uppercased() : text
      }
    case .delete(let id): state.notes.removeAll { $0.id == id }
    case .echo, .forbidden: break
    }
  }
}

/// Adds a note for every `echo`, and stops `forbidden`.
let notesMiddlewares: [AnyMiddleware<NotesState, NotesAction>] = [
  AnyMiddleware(id: "echo") { context in
    if case .echo(let text) = context.action { context.dispatch(.add(id: 100, text: text)) }
    context.next()
  },
  AnyMiddleware(id: "guard") { context in
    if case .forbidden = context.action { return }
    context.next()
  },
]

@MainActor
func makeRecordedStore(
  recorder: NotesRecorder, capacity: Int = NotesStore.defaultQueueCapacity
) -> NotesStore {
  let store = NotesStore(
    initialState: NotesState(), middlewares: notesMiddlewares, reducers: [notesReducer()],
    queueCapacity: capacity, inspector: recorder)
  recorder.start(from: store)
  return store
}

/// A fresh store of the app's reducer alone, from a recorded start: what replays run in.
@MainActor
func replayStore(from start: [Note], bug: Bool = false) -> NotesStore {
  NotesStore(initialState: NotesState(notes: start), reducers: [notesReducer(bug: bug)])
}

func temporaryFile(_ name: String) -> URL {
  FileManager.default.temporaryDirectory.appendingPathComponent(
    "devtools-\(UUID().uuidString)-\(name)")
}
