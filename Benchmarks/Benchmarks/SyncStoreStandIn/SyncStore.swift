// NB: a module of its own, as ReSwift is one to an app.
import Dispatch

/// ReSwift's action: any value, dispatched as an existential.
public protocol SyncAction {}

/// The state of ``SyncStore``: a value, as ReSwift apps keep theirs.
public struct SyncState: Equatable, Sendable {
  public var count = 0
  public init() {}
}

/// A stand-in for ReSwift 6.1's `Store`, shaped as ReSwift's is, so that each action costs
/// what ReSwift's does:
///
/// - an `open` generic class (its methods dispatched through the class's table, as an app's
///   subclass may override them);
/// - actions as existentials (`any SyncAction`) that every reducer casts back;
/// - a dispatch function built by folding the middlewares
///   (`(dispatch, getState) -> (next) -> action`);
/// - the `isDispatching` flag in a `Synchronized` value, which ReSwift 6.1 guards with a
///   concurrent `DispatchQueue` (a read through `sync`, each write through a barrier);
/// - an optional state (`State!`) whose `didSet` hands the old and new state to every
///   subscription in a `Set`, skipping repeats for `Equatable` states.
///
/// It runs on the caller's thread, synchronously: there is no queue and no batching.
open class SyncStore<State: Equatable> {
  public typealias DispatchFunction = (any SyncAction) -> Void
  public typealias Middleware =
    (@escaping DispatchFunction, @escaping () -> State?) -> (@escaping DispatchFunction) ->
    DispatchFunction
  public typealias Reducer = (any SyncAction, State?) -> State

  public var state: State! {
    didSet {
      for subscription in subscriptions {
        if subscription.subscriber == nil {
          subscriptions.remove(subscription)
        } else {
          subscription.newValues(oldState: oldValue, newState: state)
        }
      }
    }
  }

  public var dispatchFunction: DispatchFunction!
  private let reducer: Reducer
  var subscriptions: Set<SubscriptionBox<State>> = []
  private var isDispatching = Synchronized(false)
  /// The subscribers ``subscribe(_:)`` made; ReSwift's are the app's objects, held weakly.
  private var closureSubscribers: [ClosureSubscriber<State>] = []

  public init(reducer: @escaping Reducer, state: State?, middleware: [Middleware]) {
    self.reducer = reducer
    self.state = state
    let defaultDispatch: DispatchFunction = { [unowned self] action in
      self._defaultDispatch(action: action)
    }
    dispatchFunction = middleware.reversed().reduce(defaultDispatch) {
      [weak self] dispatchFunction, middleware in
      let dispatch: DispatchFunction = { self?.dispatch($0) }
      let getState = { self?.state }
      return middleware(dispatch, getState)(dispatchFunction)
    }
  }

  /// Calls `newState` with the state after every action that changed it.
  open func subscribe(_ newState: @escaping (State) -> Void) {
    let subscriber = ClosureSubscriber(newState)
    closureSubscribers.append(subscriber)
    subscriptions.insert(SubscriptionBox(subscriber))
  }

  open func _defaultDispatch(action: any SyncAction) {
    guard !isDispatching.value else {
      fatalError("ReSwift:ConcurrentMutationError - a reducer dispatched an action")
    }
    isDispatching.value { $0 = true }
    let newState = reducer(action, state)
    isDispatching.value { $0 = false }
    state = newState
  }

  open func dispatch(_ action: any SyncAction) {
    dispatchFunction(action)
  }
}

/// ReSwift 6.1's `Synchronized`: a value read through a concurrent queue's `sync` and written
/// through its barrier.
struct Synchronized<Value> {
  private let queue = DispatchQueue(label: "SyncStoreStandIn.Synchronized", attributes: .concurrent)
  private var stored: Value

  init(_ value: Value) {
    stored = value
  }

  var value: Value { queue.sync { stored } }

  mutating func value<T>(execute task: (inout Value) -> T) -> T {
    queue.sync(flags: .barrier) { task(&stored) }
  }
}

/// A subscriber object, as ReSwift's `StoreSubscriber`s are.
final class ClosureSubscriber<State> {
  let newState: (State) -> Void
  init(_ newState: @escaping (State) -> Void) { self.newState = newState }
}

/// ReSwift's `SubscriptionBox`: a weakly held subscriber, hashed by identity.
final class SubscriptionBox<State: Equatable>: Hashable {
  weak var subscriber: ClosureSubscriber<State>?
  private let id: ObjectIdentifier

  init(_ subscriber: ClosureSubscriber<State>) {
    self.subscriber = subscriber
    id = ObjectIdentifier(subscriber)
  }

  /// Hands the new state to the subscriber unless it equals the old one (skipRepeats).
  func newValues(oldState: State?, newState: State) {
    if let oldState, oldState == newState { return }
    subscriber?.newState(newState)
  }

  static func == (lhs: SubscriptionBox, rhs: SubscriptionBox) -> Bool { lhs.id == rhs.id }
  func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
