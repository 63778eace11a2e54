public import ReduxCore
import Synchronization

/// A pass-through middleware that records every action reaching it, in order.
///
/// Put it first to see every action the store processes, or last to see what the other
/// middlewares forward.
///
/// ```swift
/// let recorder = ActionRecorder<AppState, AppAction>()
/// let store = Store(initialState: AppState(), middlewares: [recorder.middleware], reducers: …)
/// …
/// #expect(recorder.actions == [.load, .loaded])
/// ```
public final class ActionRecorder<State: ReduxState, Action: ReduxAction>: Sendable {
  private let recorded = Mutex<[Action]>([])
  private let id: String

  /// Creates an empty recorder.
  ///
  /// - Parameter id: The id of the recording middleware.
  public init(id: String = "ActionRecorder") {
    self.id = id
  }

  /// The recording middleware: records the action, then forwards it.
  public var middleware: AnyMiddleware<State, Action> {
    AnyMiddleware(id: id) { context in
      self.recorded.withLock { $0.append(context.action) }
      context.next()
    }
  }

  /// Every action recorded so far, in processing order.
  ///
  /// - Complexity: O(*n*), where *n* is the number of recorded actions: it copies them.
  public var actions: [Action] {
    recorded.withLock { $0 }
  }

  /// Forgets every recorded action.
  ///
  /// - Complexity: O(*n*), where *n* is the number of recorded actions.
  public func reset() {
    recorded.withLock { $0 = [] }
  }
}
