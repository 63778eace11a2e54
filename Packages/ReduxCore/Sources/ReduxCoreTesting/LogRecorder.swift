public import ReduxCore
import Synchronization

/// Records what a store reports through `onLog`.
///
/// ```swift
/// let logs = LogRecorder<AppState, AppAction>()
/// let store = Store(initialState: AppState(), reducers: [reducer], onLog: logs.onLog)
/// …
/// #expect(logs.events.count == 1)
/// ```
public final class LogRecorder<State: ReduxState, Action: ReduxAction>: Sendable {
  public typealias Log = Store<State, Action>.Log

  private let recorded = Mutex<[Log]>([])

  public init() {}

  /// Pass this as the store's `onLog`.
  public var onLog: @Sendable (Log) -> Void {
    { entry in self.recorded.withLock { $0.append(entry) } }
  }

  /// Every entry, in the order they were reported.
  public var entries: [Log] {
    recorded.withLock { $0 }
  }

  /// The `.store` entries.
  public var events: [Store<State, Action>.Event] {
    entries.compactMap { if case .store(let event) = $0 { event } else { nil } }
  }

  /// The `.middleware` entries as (id, action, result).
  public var middlewareEntries: [(id: String, action: Action, result: Result<Bool, any Error>)] {
    entries.compactMap {
      if case .middleware(let id, let action, _, let result) = $0 {
        (id, action, result)
      } else {
        nil
      }
    }
  }

  /// The `.reducer` entries as (id, action, succeeded).
  public var reducerEntries: [(id: String, action: Action, succeeded: Bool)] {
    entries.compactMap {
      if case .reducer(let id, let action, _, let succeeded) = $0 {
        (id, action, succeeded)
      } else {
        nil
      }
    }
  }

  /// The `.resolver` entries as (id, action, succeeded).
  public var resolverEntries: [(id: String, action: Action, succeeded: Bool)] {
    entries.compactMap {
      if case .resolver(let id, let action, _, let succeeded, _) = $0 {
        (id, action, succeeded)
      } else {
        nil
      }
    }
  }

  /// Forgets every entry.
  public func reset() {
    recorded.withLock { $0 = [] }
  }
}
