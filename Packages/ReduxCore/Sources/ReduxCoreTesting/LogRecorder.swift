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
  /// What the store reports: a timing entry or a store event.
  public typealias Log = Store<State, Action>.Log

  private let recorded = Mutex<[Log]>([])

  /// Creates an empty recorder.
  public init() {}

  /// Pass this as the store's `onLog`.
  public var onLog: @Sendable (Log) -> Void {
    { entry in self.recorded.withLock { $0.append(entry) } }
  }

  /// Every entry, in the order they were reported.
  ///
  /// - Complexity: O(*n*), where *n* is the number of entries: it copies them.
  public var entries: [Log] {
    recorded.withLock { $0 }
  }

  /// The `.store` entries.
  ///
  /// - Complexity: O(*n*), where *n* is the number of entries.
  public var events: [Store<State, Action>.Event] {
    entries.compactMap { if case .store(let event) = $0 { event } else { nil } }
  }

  /// The `.middleware` entries as (id, action, result).
  ///
  /// - Complexity: O(*n*), where *n* is the number of entries.
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
  ///
  /// - Complexity: O(*n*), where *n* is the number of entries.
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
  ///
  /// - Complexity: O(*n*), where *n* is the number of entries.
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
  ///
  /// - Complexity: O(*n*), where *n* is the number of entries.
  public func reset() {
    recorded.withLock { $0 = [] }
  }
}
