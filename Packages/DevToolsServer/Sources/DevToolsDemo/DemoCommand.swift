import ArgumentParser
import DevTools
import DevToolsServer
import FeatureKit
import Foundation
import Logging
import Observation
import QueryCache
import ReduxCore

/// `reduxkit-devtools-demo`: a small notes app whose store is recorded and served on the
/// DevTools page. It makes a few changes at start, then one per line of standard input
/// (`add 5 text`, `edit 5 text`, `delete 5`), and prints its state each time it changes (time
/// travel included), so that a person or a script sees what the page does to the app.
@main
struct DemoCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reduxkit-devtools-demo",
    abstract: "A notes app recorded by ReduxKit DevTools, with its page in the browser.")

  @Option(help: "The address to listen on.")
  var host = "127.0.0.1"

  @Option(help: "The port (0: any free one, printed).")
  var port = 0

  @Option(help: "The token the page needs (required on any address but loopback).")
  var token: String?

  @Option(help: "Also write the session to this file (JSON lines).")
  var session: String?

  @Option(help: "Then edit a note this many times (a long timeline, for the page's speed).")
  var edits = 0

  @Option(help: "The records the recorder keeps (its ring buffer's capacity).")
  var capacity = 10_000

  @MainActor
  func run() async throws {
    let writer = try session.map {
      try DevToolsSessionWriter(url: URL(fileURLWithPath: $0), app: "notes")
    }
    let recorder = DevToolsRecorder<NotesState, NotesAction, [Note]>(
      app: "notes", limits: .init(capacity: capacity), session: writer
    ) { $0.undoSnapshot }
    let store = Store(
      initialState: NotesState(), middlewares: [refuseEmpty], reducers: [notesReducer],
      inspector: recorder, onLog: { recorder.log($0) })
    recorder.start(from: store)
    let travel = DevToolsTimeTravel(store: store, recorder: recorder) { start in
      Store(initialState: NotesState(notes: start), reducers: [notesReducer])
    }
    let server = try DevToolsServer(
      timeline: recorder, travel: travel,
      configuration: .init(host: host, port: port, token: token))
    let changes = store.changes(of: \.notes)
    // NB: not with --edits: a state per edit would be printed.
    if edits == 0 {
      Task {
        for await notes in changes {
          say("state: " + notes.map(\.text).joined(separator: " | "))
        }
      }
    }
    for (id, text) in [(1, "buy milk"), (2, "write the report"), (3, "call Ada")] {
      await store.dispatchWithResult(.add(id: id, text: text))
    }
    await store.dispatchWithResult(.edit(id: 2, text: "write the report, today"))
    await store.dispatchWithResult(.delete(id: 1))
    await store.dispatchWithResult(.add(id: 4, text: ""))  // refused by the middleware
    // A query cache and a feature, recorded in the same timeline.
    let queries = QueryClient(onEvent: { event in
      recorder.record(.query, name: event.name, source: "query", payload: .string("\(event.key)"))
    })
    for _ in 0..<2 { _ = await queries.fetch(queryKey: QueryKey("notes", "count")) { 2 } }
    await queries.invalidate(QueryKey("notes"))
    let filter = FeatureStore(initialState: "", feature: Filter())
    filter.onAction = { action in recorder.record(.feature, name: "\(action)", source: "filter") }
    filter.send(.set("report"))
    for edit in 0..<edits {
      await store.dispatchWithResult(.edit(id: 3, text: "call Ada, take \(edit)"))
    }
    recorder.flush()
    Task {
      for await line in Self.lines() {
        guard let action = NotesAction(command: line) else {
          say("unknown command: \(line) (add ID TEXT, edit ID TEXT, delete ID)")
          continue
        }
        await store.dispatchWithResult(action)
      }
    }
    try await server.run { url in
      say("DevTools: \(url.absoluteString)")
    }
  }
}

/// A line on standard output at once (a script waits for it through a pipe).
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

extension DemoCommand {
  /// Standard input's lines, read on a thread of their own (a blocking read must not hold the
  /// main actor, where the store runs).
  static func lines() -> AsyncStream<String> {
    let (lines, continuation) = AsyncStream.makeStream(of: String.self)
    Thread.detachNewThread {
      while let line = readLine() { continuation.yield(line) }
      continuation.finish()
    }
    return lines
  }
}

extension NotesAction {
  /// `add 5 text`, `edit 5 text`, `delete 5`.
  init?(command: String) {
    let words = command.split(separator: " ", maxSplits: 2).map(String.init)
    guard words.count >= 2, let id = Int(words[1]) else { return nil }
    let text = words.count > 2 ? words[2] : ""
    switch words[0] {
    case "add": self = .add(id: id, text: text)
    case "edit": self = .edit(id: id, text: text)
    case "delete": self = .delete(id: id)
    default: return nil
    }
  }
}

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

  var id: String {
    switch self {
    case .add: "add"
    case .edit: "edit"
    case .delete: "delete"
    }
  }
}

let notesReducer = AnyReducer<NotesState, NotesAction>(id: "notes") { context in
  let (state, action) = context.args
  switch action {
  case .add(let id, let text): state.notes.append(Note(id: id, text: text))
  case .edit(let id, let text):
    if let index = state.notes.firstIndex(where: { $0.id == id }) { state.notes[index].text = text }
  case .delete(let id): state.notes.removeAll { $0.id == id }
  }
  context.complete()
}

/// The notes' filter: a FeatureKit feature beside the store.
struct Filter: StoreFeature {
  enum Action: Sendable {
    case set(String)
  }

  func handle() -> ActionHandler<Action, String> {
    ActionHandler { action, text in
      if case .set(let new) = action { text = new }
      return .none
    }
  }
}

/// Stops a note without text: an action the page shows as stopped.
let refuseEmpty = AnyMiddleware<NotesState, NotesAction>(id: "refuseEmpty") { context in
  defer { context.complete() }
  if case .add(_, "") = context.action { return }
  context.next()
}
