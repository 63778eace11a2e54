public import ReduxCore

/// Async work a reducer returns; it sends actions back through `send`.
///
/// Effects run off the main actor (`@concurrent`); `await send(action)` hops back to it. Apps
/// specialise it once:
///
/// ```swift
/// typealias Send = ReduxCore.Send<AppAction>
/// typealias Effect = Persistence.Effect<AppAction>
/// ```
public typealias Effect<Action: Sendable> = @concurrent @Sendable (Send<Action>) async -> Void
