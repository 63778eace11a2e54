public import ReduxCore

/// Replays a recorded session into a fresh store, action by action, and finds the first action
/// whose resulting state differs from the recorded one: the bug-reproduction tool.
///
/// ```swift
/// let session = try DevToolsSession(contentsOf: url)
/// let report = try await DevToolsReplay.run(session, as: AppAction.self,
///   makeStore: { start in Store(initialState: AppState(start), reducers: appReducers) },
///   snapshot: { $0.undoSnapshot })
/// if let divergence = report.divergence { print(divergence) }   // #12 'move': cards[id=3]…
/// ```
///
/// Every action the store ran is dispatched again in its recorded order, those its middlewares
/// and resolvers dispatched included, so the store to replay into should have the app's
/// reducers and no middleware with side effects. Refused actions and other events are skipped.
/// Where time travel resumed without some actions (a ``DevToolsRecord/Kind/travel`` record),
/// the replay recomputes as the app did: a fresh store from the start, the actions so far but
/// those, and on from there. With time taken from the actions (or an injected clock), a replay
/// is deterministic.
public enum DevToolsReplay {
  /// The first action whose state after it differs from the recorded one.
  public struct Divergence: Sendable, CustomStringConvertible {
    /// The record's index and name.
    public let index: Int
    /// The action's name (its id).
    public let name: String
    /// The state recorded after it.
    public let recorded: JSONValue
    /// The state after it in the replay.
    public let replayed: JSONValue
    /// What differs, from the recorded state to the replayed one.
    public let diff: StateDiff

    public var description: String {
      "#\(index) '\(name)' gives another state: "
        + diff.changes.prefix(5).map(\.description).joined(separator: "; ")
        + (diff.changes.count > 5 ? "; … (\(diff.changes.count) changes)" : "")
    }
  }

  /// What a replay did.
  public struct Report: Sendable {
    /// Actions dispatched again.
    public let replayed: Int
    /// Records not replayed: refusals and events (a time travel's record is replayed).
    public let skipped: Int
    /// The first divergence, or `nil` when every replayed state matches.
    public let divergence: Divergence?
  }

  /// Replays `session`.
  ///
  /// - Parameters:
  ///   - session: The session; its record 0 is the state it started from.
  ///   - actionType: The app's action type.
  ///   - makeStore: A fresh store starting from the snapshot of record 0 (`nil` if the session
  ///     has none).
  ///   - snapshot: The same projection the recorder took.
  /// - Returns: What the replay did, and the first divergence.
  /// - Throws: ``DevToolsSessionError/unknownAction(line:name:)`` for an action this app does
  ///   not decode (a session from another build), before anything is dispatched.
  @MainActor
  public static func run<State: ReduxState, Action: ReduxAction & Codable, Snapshot: Encodable>(
    _ session: DevToolsSession, as actionType: Action.Type,
    makeStore: @MainActor (_ start: JSONValue?) throws -> Store<State, Action>,
    snapshot: @MainActor (State.ReadOnly) -> Snapshot
  ) async throws -> Report {
    var plan: [(record: DevToolsRecord, action: Action?)] = []
    var skipped = 0
    for (offset, record) in session.records.enumerated() where record.index > 0 {
      if record.kind == .travel {
        plan.append((record, nil))
        continue
      }
      guard record.kind == .action, record.outcome != .refused, let payload = record.payload
      else {
        skipped += 1
        continue
      }
      do {
        plan.append((record, try payload.decode(Action.self)))
      } catch {
        // NB: line 1 is the header.
        throw DevToolsSessionError.unknownAction(line: offset + 2, name: record.name)
      }
    }
    let start = session.record(0)?.state
    var store = try makeStore(start)
    defer { store.shutdown() }
    var ran: [(index: Int, action: Action)] = []
    var replayed = 0
    for (record, action) in plan {
      let state: State.ReadOnly
      if let action {
        state = await store.dispatchWithResult(action)
        ran.append((record.index, action))
        replayed += 1
      } else {
        // NB: the app resumed on a state recomputed without these entries: so does the replay.
        let left = Set(try record.payload?.decode([Int].self) ?? [])
        store.shutdown()
        store = try makeStore(start)
        for (index, action) in ran where !left.contains(index) {
          _ = await store.dispatchWithResult(action)
        }
        state = store.state
      }
      guard let recorded = record.state else { continue }
      let now = try JSONValue(encoding: snapshot(state))
      if now != recorded {
        return Report(
          replayed: replayed, skipped: skipped,
          divergence: Divergence(
            index: record.index, name: record.name, recorded: recorded, replayed: now,
            diff: StateDiff(from: recorded, to: now)))
      }
    }
    return Report(replayed: replayed, skipped: skipped, divergence: nil)
  }
}
