/// A live subscription to the store's state.
@MainActor
protocol StateSubscription: AnyObject {
  /// Reads the selection and emits it if it changed.
  func refresh()
  func finish()
}

/// Emits a selected value when it differs from the last one emitted.
@MainActor
final class SelectionSubscription<ReadOnly: ReduxReadOnlyState, Value: Equatable & Sendable>:
  StateSubscription
{
  private let readOnly: ReadOnly
  private let select: (ReadOnly) -> Value
  private let continuation: AsyncStream<Value>.Continuation
  private var last: Value?
  private var isFinished = false

  init(
    readOnly: ReadOnly, select: @escaping (ReadOnly) -> Value,
    _ continuation: AsyncStream<Value>.Continuation
  ) {
    self.readOnly = readOnly
    self.select = select
    self.continuation = continuation
  }

  func refresh() {
    guard !isFinished else { return }
    let value = select(readOnly)
    guard value != last else { return }
    last = value
    continuation.yield(value)
  }

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
  private var entries: [ObjectIdentifier: any StateSubscription] = [:]
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
    for subscription in entries.values { subscription.refresh() }
  }

  func add(_ subscription: any StateSubscription) -> ObjectIdentifier {
    let key = ObjectIdentifier(subscription)
    entries[key] = subscription
    isEmpty = false
    return key
  }

  func remove(_ key: ObjectIdentifier) {
    entries[key] = nil
    isEmpty = entries.isEmpty
  }

  /// Ends every stream.
  func finishAll() {
    for subscription in entries.values { subscription.finish() }
    entries = [:]
    isEmpty = true
  }
}
