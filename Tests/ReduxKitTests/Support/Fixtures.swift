import InMemoryLogging
import Logging
import Observation
import ReduxKit

@MainActor
@Observable
final class TallyState: ReduxState {
  var total = 0
  var readOnly: ReadOnly { ReadOnly(self) }

  @MainActor
  @Observable
  final class ReadOnly: ReduxReadOnlyState {
    private let state: TallyState
    init(_ state: TallyState) { self.state = state }
    var total: Int { state.total }
  }
}

enum TallyAction: ReduxAction {
  case add(Int)
  case fail

  var id: String {
    switch self {
    case .add: "add"
    case .fail: "fail"
    }
  }
}

struct Boom: Error, CustomStringConvertible {
  var description: String { "boom" }
}

/// Adds every `.add` to the total and reports its timing.
let tally = AnyReducer<TallyState, TallyAction>(id: "tally") { context in
  if case .add(let amount) = context.action { context.state.total += amount }
  context.complete()
}

/// Throws for `.fail`, forwards everything else.
let failing = AnyMiddleware<TallyState, TallyAction>(id: "guard") { context in
  if case .fail = context.action { throw Boom() }
  context.next()
}

/// A logger whose entries the returned handler keeps, for assertions.
func capturingLogger(level: Logger.Level = .trace) -> (Logger, InMemoryLogHandler) {
  var handler = InMemoryLogHandler()
  handler.logLevel = level
  return (Logger(label: "test") { [handler] _ in handler }, handler)
}

/// What a test compares of a captured entry.
struct Captured: Equatable, CustomStringConvertible {
  var level: Logger.Level
  var message: String
  var metadata: [String: String]
  var error: String?

  init(
    _ level: Logger.Level, _ message: String, _ metadata: [String: String] = [:],
    error: String? = nil
  ) {
    self.level = level
    self.message = message
    self.metadata = metadata
    self.error = error
  }

  init(_ entry: InMemoryLogHandler.Entry) {
    self.init(
      entry.level, "\(entry.message)", entry.metadata.mapValues(\.description),
      error: entry.error.map { "\($0)" })
  }

  var description: String {
    "\(level) \"\(message)\" \(metadata.sorted { $0.key < $1.key })"
      + (error.map { " with error \($0)" } ?? "")
  }
}

extension InMemoryLogHandler {
  /// The entries, as comparable values.
  var captured: [Captured] { entries.map(Captured.init) }
}
