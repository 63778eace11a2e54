public import Logging
public import ReduxCore

extension Logger {
  /// Logs one entry of a store's `onLog`: pass `logger.log` as the store's `onLog` to send what
  /// the store reports to swift-log.
  ///
  /// ```swift
  /// let logger = Logger(label: "ReduxKit.ReduxCore.Store")
  /// let store = Store(initialState: AppState(), reducers: [app], onLog: logger.log)
  /// ```
  ///
  /// Each entry gets a level by what it means, and the ids it carries as metadata (`action` is
  /// the action's `id`; a duration is the `Duration`'s description):
  ///
  /// | entry | level | metadata |
  /// |---|---|---|
  /// | a middleware, reducer or resolver that completed successfully | trace | `middleware`, `reducer` or `resolver`; `action`; `duration` |
  /// | one that completed unsuccessfully, or a middleware that threw | warning | the same (and the error) |
  /// | `refused`, `discarded` | warning | `action`, `reason` |
  /// | `taskRefused` | warning | `action`, `origin`, `reason` |
  /// | `unresolvedError` | error | `action`, `origin` (and the error) |
  /// | `shutdown` | debug, or warning when it discarded actions | `discarded` |
  ///
  /// Errors are passed as swift-log's `error:` (a handler shows them as `error.message` and
  /// `error.type`). Timing entries exist only for components that call `context.complete()`.
  ///
  /// - Parameter entry: What the store reported.
  public func log<State: ReduxState, Action: ReduxAction>(_ entry: Store<State, Action>.Log) {
    switch entry {
    case .middleware(let id, let action, let duration, let result):
      let metadata = Self.timing("middleware", id, action, duration)
      switch result {
      case .success(true):
        trace("middleware '\(id)' completed '\(action.id)'", metadata: metadata)
      case .success(false):
        warning("middleware '\(id)' did not succeed for '\(action.id)'", metadata: metadata)
      case .failure(let error):
        warning(
          "middleware '\(id)' threw during '\(action.id)'", error: error, metadata: metadata)
      }
    case .reducer(let id, let action, let duration, let succeeded):
      let metadata = Self.timing("reducer", id, action, duration)
      if succeeded {
        trace("reducer '\(id)' completed '\(action.id)'", metadata: metadata)
      } else {
        warning("reducer '\(id)' did not succeed for '\(action.id)'", metadata: metadata)
      }
    case .resolver(let id, let action, let duration, let succeeded, let error):
      let metadata = Self.timing("resolver", id, action, duration)
      if succeeded {
        trace("resolver '\(id)' completed '\(action.id)'", error: error, metadata: metadata)
      } else {
        warning(
          "resolver '\(id)' did not succeed for '\(action.id)'", error: error, metadata: metadata)
      }
    case .store(let event):
      logStoreEvent(event)
    }
  }

  private func logStoreEvent<State: ReduxState, Action: ReduxAction>(
    _ event: Store<State, Action>.Event
  ) {
    switch event {
    case .refused(let action, let reason), .discarded(let action, let reason):
      warning(
        "\(event)", metadata: ["action": .string(action.id), "reason": .stringConvertible(reason)])
    case .unresolvedError(let error, let action, let origin):
      self.error(
        "\(event)", error: error,
        metadata: ["action": .string(action.id), "origin": "\(origin)"])
    case .taskRefused(let action, let origin, let reason):
      warning(
        "\(event)",
        metadata: [
          "action": .string(action.id), "origin": "\(origin)",
          "reason": .stringConvertible(reason),
        ])
    case .shutdown(let discarded):
      log(
        level: discarded > 0 ? .warning : .debug, "\(event)",
        metadata: ["discarded": .stringConvertible(discarded)])
    case .adjusted:
      warning("\(event)")
    }
  }

  private static func timing(
    _ kind: String, _ id: String, _ action: some ReduxAction, _ duration: Duration
  ) -> Metadata {
    [kind: .string(id), "action": .string(action.id), "duration": .stringConvertible(duration)]
  }
}
