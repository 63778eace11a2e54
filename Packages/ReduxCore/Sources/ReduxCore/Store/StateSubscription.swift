/// Emits a selected value when it differs from the last one emitted.
///
/// NB: its methods are inlinable and the subscriptions hold closures that call them, made where
/// `changes(of:)` is specialised for the app's types: called through a protocol instead, they
/// ran unspecialised, looking up the metadata of `Value?` and its equality at every refresh
/// (about 3,600 instructions per subscriber and refresh).
@MainActor
@usableFromInline
final class SelectionSubscription<ReadOnly: ReduxReadOnlyState, Value: Equatable & Sendable> {
  @usableFromInline let readOnly: ReadOnly
  @usableFromInline let select: (ReadOnly) -> Value
  @usableFromInline let continuation: AsyncStream<Value>.Continuation
  @usableFromInline var last: Value?
  @usableFromInline var isFinished = false

  @inlinable
  init(
    readOnly: ReadOnly, select: @escaping (ReadOnly) -> Value,
    _ continuation: AsyncStream<Value>.Continuation
  ) {
    self.readOnly = readOnly
    self.select = select
    self.continuation = continuation
  }

  /// Reads the selection and emits it if it changed.
  @inlinable
  func refresh() {
    guard !isFinished else { return }
    let value = select(readOnly)
    guard value != last else { return }
    last = value
    continuation.yield(value)
  }

  @inlinable
  func finish() {
    isFinished = true
    continuation.finish()
  }
}

/// The store's ``Store/changes(of:)`` subscriptions, refreshed once after each batch of actions
/// whose reducers ran.
///
/// NB: the reducers are the state's only writers, so the worker knows when it may have changed:
/// no Observation tracking per subscription (a registration, a hashed key path and a task for
/// every subscriber and batch), and one refresh task per batch whatever the number of
/// subscribers. A separate object, so that a stream's termination handler holds it weakly
/// rather than the worker: a weak reference moves an object's reference count to a side table,
/// which makes every retain and release of it slower, and the pipeline retains the worker for
/// every context.
@MainActor
@usableFromInline
final class StateSubscriptions {
  /// A live subscription: how to refresh it and how to end it.
  @usableFromInline
  struct Entry {
    @usableFromInline let refresh: @MainActor () -> Void
    @usableFromInline let finish: @MainActor () -> Void

    @inlinable
    init(refresh: @escaping @MainActor () -> Void, finish: @escaping @MainActor () -> Void) {
      self.refresh = refresh
      self.finish = finish
    }
  }

  private var entries: [ObjectIdentifier: Entry] = [:]
  /// Whether any subscription is live: the pipeline's only question, once per reducer pass.
  @exclusivity(unchecked) @usableFromInline var isEmpty = true
  /// Whether a refresh is scheduled and not run yet.
  @exclusivity(unchecked) @usableFromInline var isRefreshPending = false

  init() {}

  /// Schedules one refresh of every subscription behind the main-actor work already waiting
  /// (the rest of the batch, usually), unless one is pending.
  @inlinable
  func stateMayHaveChanged() {
    guard !isEmpty, !isRefreshPending else { return }
    scheduleRefresh()
  }

  @usableFromInline
  func scheduleRefresh() {
    isRefreshPending = true
    Task { @MainActor [weak self] in self?.refresh() }
  }

  /// Refreshes every subscription now.
  ///
  /// - Complexity: O(*s*), *s* the number of subscriptions.
  func refresh() {
    isRefreshPending = false
    for entry in entries.values { entry.refresh() }
  }

  /// Adds a subscription under `key`, the identity of the object its closures serve.
  @usableFromInline
  func add(_ key: ObjectIdentifier, _ entry: Entry) {
    entries[key] = entry
    isEmpty = false
  }

  @usableFromInline
  func remove(_ key: ObjectIdentifier) {
    entries[key] = nil
    isEmpty = entries.isEmpty
  }

  /// Ends every stream.
  func finishAll() {
    for entry in entries.values { entry.finish() }
    entries = [:]
    isEmpty = true
  }
}
