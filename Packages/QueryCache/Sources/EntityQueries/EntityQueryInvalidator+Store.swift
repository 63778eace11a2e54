public import EntityTracking
public import ReduxCore

extension EntityQueryInvalidator {
  /// Plugs the invalidator into a ReduxCore ``/ReduxCore/Store``: a reducer that records the
  /// changes of the `EntityStore` at `keyPath` after the reducers before it, **without draining
  /// them**, so the reducers after it (persistence) still find every change.
  ///
  /// Put it after the reducers that change the store and before the one that drains it:
  ///
  /// ```swift
  /// let store = Store(
  ///   initialState: state,
  ///   reducers: [boardReducer, cardQueries.reducer(reading: \.cards), persistence.reducer()])
  /// ```
  ///
  /// It reads the store's ``/EntityTracking/EntityStore/changes``: every id changed since the
  /// last drain. A drain after every action (persistence's) keeps that to one action's changes;
  /// ids read again unchanged cost a comparison and change nothing. A store nothing drains
  /// wants ``reducer(draining:id:)``.
  ///
  /// - Parameters:
  ///   - keyPath: Where the store lives in the state.
  ///   - id: The reducer's id in logs.
  /// - Returns: A reducer that calls ``record(_:in:)``.
  /// - Complexity: O(1) when the store recorded no change; otherwise what ``record(_:in:)``
  ///   costs for the changes since the last drain.
  @MainActor
  public func reducer<State: ReduxState, Action: ReduxAction>(
    reading keyPath: KeyPath<State, EntityStore<Entity>>, id: String = "entity-queries"
  ) -> AnyReducer<State, Action> {
    let location = StoreLocation(keyPath)
    return AnyReducer(id: id) { [self] context in
      defer { context.complete() }
      let store = context.state[keyPath: location.keyPath]
      guard store.hasChanges else { return }
      record(store.changes, in: store)
    }
  }

  /// A reducer that drains the changes of the `EntityStore` at `keyPath` and records them: for
  /// a store whose changes nothing else takes (no persistence).
  ///
  /// - Important: Draining takes the changes away from every reducer after it and from
  ///   anything that reads the store later. A store that `PersistenceMiddleware` persists wants
  ///   ``reducer(reading:id:)`` instead.
  ///
  /// - Parameters:
  ///   - keyPath: Where the store lives in the state.
  ///   - id: The reducer's id in logs.
  /// - Returns: A reducer that drains the store and calls ``record(_:in:)``.
  /// - Complexity: O(1) when the store recorded no change; otherwise what ``record(_:in:)``
  ///   costs for the drained changes.
  @MainActor
  public func reducer<State: ReduxState, Action: ReduxAction>(
    draining keyPath: WritableKeyPath<State, EntityStore<Entity>>, id: String = "entity-queries"
  ) -> AnyReducer<State, Action> {
    let location = StoreLocation(keyPath)
    return AnyReducer(id: id) { [self] context in
      defer { context.complete() }
      var state = context.state
      guard state[keyPath: location.keyPath].hasChanges else { return }
      let changes = state[keyPath: location.keyPath].drainChanges()
      record(changes, in: state[keyPath: location.keyPath])
    }
  }
}

/// Where an `EntityStore` lives in a state, kept on the main actor: a key path to a property of
/// a main-actor state is not `Sendable`, and the reducers that read it run on the main actor.
@MainActor
private final class StoreLocation<Path: AnyKeyPath> {
  let keyPath: Path

  init(_ keyPath: Path) {
    self.keyPath = keyPath
  }
}
