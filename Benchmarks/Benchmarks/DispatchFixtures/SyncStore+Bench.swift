public import SyncStoreStandIn

extension BenchAction: SyncAction {}

/// The ReSwift-style store doing the benchmark's work: 3 pass-through middlewares around 3
/// counting reducers, each reducer casting the action back as ReSwift reducers do.
@MainActor
public func makeSyncStore(middlewares: Int, reducers: Int) -> SyncStore<SyncState> {
  let counting: SyncStore<SyncState>.Reducer = { action, state in
    var state = state ?? SyncState()
    switch action as? BenchAction {
    case .increment?: state.count &+= 1
    case .add(let amount)?: state.count &+= amount
    case nil: break
    }
    return state
  }
  let passThrough: SyncStore<SyncState>.Middleware = { _, _ in
    { next in { action in next(action) } }
  }
  return SyncStore(
    reducers: Array(repeating: counting, count: reducers),
    middlewares: Array(repeating: passThrough, count: middlewares), state: SyncState())
}
