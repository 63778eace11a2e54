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
  // NB: a ReSwift app's root reducer calls its reducers in turn.
  let reducerList = Array(repeating: counting, count: reducers)
  let root: SyncStore<SyncState>.Reducer = { action, state in
    var state = state
    for reducer in reducerList { state = reducer(action, state) }
    return state ?? SyncState()
  }
  return SyncStore(
    reducer: root, state: SyncState(),
    middleware: Array(repeating: passThrough, count: middlewares))
}
