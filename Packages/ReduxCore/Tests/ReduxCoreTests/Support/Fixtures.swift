import Observation
import ReduxCore
import ReduxCoreTesting
import Synchronization

@MainActor
@Observable
final class TestState: ReduxState {
  var value = 0
  var log: [String] = []
  var readOnly: ReadOnly { ReadOnly(self) }

  init(value: Int = 0) {
    self.value = value
  }

  @MainActor
  @Observable
  final class ReadOnly: ReduxReadOnlyState {
    private let state: TestState
    init(_ state: TestState) { self.state = state }
    var value: Int { state.value }
    var log: [String] { state.log }
  }
}

enum TestAction: ReduxAction {
  case run
  case inc
  case add(Int)
  case set(Int)
  case fail
  case note(String)

  var id: String {
    switch self {
    case .run: "run"
    case .inc: "inc"
    case .add: "add"
    case .set: "set"
    case .fail: "fail"
    case .note: "note"
    }
  }
}

struct TestError: Error, Equatable {
  var code = 1
}

typealias CounterStore = Store<TestState, TestAction>
typealias Middle = AnyMiddleware<TestState, TestAction>
typealias Reduce = AnyReducer<TestState, TestAction>
typealias Resolve = AnyResolver<TestState, TestAction>
typealias Logs = LogRecorder<TestState, TestAction>

/// The reducer most tests use: counts and logs every action it sees.
let counter = Reduce(id: "counter") { context in
  let (state, action) = context.args
  switch action {
  case .inc: state.value += 1
  case .add(let amount): state.value += amount
  case .set(let value): state.value = value
  case .run, .fail: break
  case .note(let text): state.log.append(text)
  }
  if case .note = action {} else { state.log.append(action.id) }
}

/// A reducer that appends `id` to the log.
func logging(_ id: String) -> Reduce {
  Reduce(id: id) { $0.state.log.append(id) }
}

/// A thread-safe list the tests append to from anywhere.
final class Trace: Sendable {
  private let items = Mutex<[String]>([])
  func append(_ item: String) { items.withLock { $0.append(item) } }
  var all: [String] { items.withLock { $0 } }
}
