// NB: a module of its own, as ReSwift is one to an app: its generic store runs unspecialised
// (metadata lookups, existential actions), which is what an app pays for ReSwift.
import Synchronization

/// ReSwift's action: any value, dispatched as an existential.
public protocol SyncAction {}

/// The state of ``SyncStore``: a value, as ReSwift apps keep theirs.
public struct SyncState: Equatable, Sendable {
  public var count = 0
  public init() {}
}

/// A stand-in for ReSwift 6's `Store`, doing per action the work ReSwift does: a generic store
/// whose actions are existentials (`any SyncAction`) that every reducer casts back; a dispatch
/// function built by folding the middlewares (`(dispatch, getState) -> (next) -> action`); an
/// `isDispatching` flag behind a lock; the reducers applied in turn to an optional state value;
/// and every subscription given the old and new state, skipping repeats, synchronously after
/// each action.
///
/// It runs on the caller's thread, synchronously: there is no queue and no batching.
@MainActor
public final class SyncStore<State: Equatable> {
  public typealias DispatchFunction = @MainActor (any SyncAction) -> Void
  public typealias Middleware =
    @MainActor (@escaping DispatchFunction, @escaping @MainActor () -> State?) -> (
      @escaping DispatchFunction
    ) -> DispatchFunction
  public typealias Reducer = @MainActor (any SyncAction, State?) -> State

  /// A subscriber and what it last saw, as ReSwift's `SubscriptionBox`.
  @MainActor
  final class Subscription {
    let newState: @MainActor (State) -> Void
    init(_ newState: @escaping @MainActor (State) -> Void) { self.newState = newState }

    func newValues(oldState: State?, newState: State) {
      if let oldState, oldState == newState { return }  // skipRepeats, as for Equatable states
      self.newState(newState)
    }
  }

  public private(set) var state: State?
  private let reducer: Reducer
  private var subscriptions: [Subscription] = []
  private let isDispatching = Mutex(false)
  private var dispatchFunction: DispatchFunction = { _ in }

  public init(reducers: [Reducer], middlewares: [Middleware], state: State?) {
    self.state = state
    self.reducer = { action, state in
      var state = state
      for reducer in reducers { state = reducer(action, state) }
      return state!
    }
    let base: DispatchFunction = { [unowned self] action in self.defaultDispatch(action) }
    let dispatch: DispatchFunction = { [unowned self] action in self.dispatch(action) }
    let getState: @MainActor () -> State? = { [unowned self] in self.state }
    dispatchFunction = middlewares.reversed().reduce(base) { next, middleware in
      middleware(dispatch, getState)(next)
    }
  }

  /// Calls `subscriber` with the state after every action that changed it.
  public func subscribe(_ subscriber: @escaping @MainActor (State) -> Void) {
    subscriptions.append(Subscription(subscriber))
  }

  public func dispatch(_ action: any SyncAction) {
    dispatchFunction(action)
  }

  private func defaultDispatch(_ action: any SyncAction) {
    let reentrant = isDispatching.withLock { dispatching in
      defer { dispatching = true }
      return dispatching
    }
    precondition(!reentrant, "a reducer dispatched an action")
    let newState = reducer(action, state)
    isDispatching.withLock { $0 = false }
    let oldState = state
    state = newState
    for subscription in subscriptions {
      subscription.newValues(oldState: oldState, newState: newState)
    }
  }
}
