/// One cache entry's lifecycle as a pure state machine: fetching, cached, invalidated, and
/// collectable (its owner then removes it: collected).
///
/// Every event is a `mutating` method that returns what the owner (``QueryClientCache``) must
/// do: start a fetch, notify observers, arm or cancel the entry's gc timer. The machine performs
/// no side effects, reads no clock (the owner passes `now`), and is tested synchronously
/// (QueryEntryStateMachineTests). `Fetch` is the owner's handle of a running fetch.
struct QueryEntryStateMachine<Fetch> {
  /// The fetch running for the entry.
  struct InFlight {
    let id: Int
    let fetch: Fetch
    /// Set by an invalidation while the fetch ran: its value must not be cached.
    var isInvalidated = false
    /// Callers that joined it after the one that started it.
    var joined = 0
  }

  /// Where the entry is in its lifecycle.
  enum Phase: Equatable {
    /// Nothing fetched yet, or invalidated and not refetched.
    case empty
    /// A fetch runs.
    case fetching
    /// A value is cached.
    case cached
  }

  /// How a fetch request proceeds.
  enum FetchDecision {
    /// Return the cached value, stored at `updatedAt`.
    case cached(any Sendable, isFresh: Bool, updatedAt: Duration)
    /// Wait for the fetch in flight.
    case join(Fetch, id: Int)
    /// Start a fetch, then report it with ``didStart(id:fetch:)``.
    case start
  }

  /// What becomes of a finished fetch's result.
  enum Completion: Equatable {
    /// Not the fetch in flight (cancelled, or already finished): nothing changes.
    case ignored
    /// Invalidated while it ran: its callers get it, the cache does not keep it.
    case discarded
    /// Cached (or, for a failure, recorded beside the kept value): notify the observers.
    case stored
  }

  /// What the owner does with the entry's gc timer.
  enum Collection: Equatable {
    /// Arm it: evict the entry after this long unless it is observed or fetching by then.
    case schedule(after: Duration)
    /// Disarm it: the entry is observed or fetching.
    case cancel
  }

  private(set) var value: (any Sendable)?
  private(set) var error: (any Error)?
  private(set) var updatedAt: Duration?
  private(set) var valueType: ObjectIdentifier
  private(set) var typeName: String
  private(set) var gcTime: Duration
  private(set) var inFlight: InFlight?
  private(set) var observers: Int

  /// A new, empty entry holding values of `valueType`.
  init(valueType: ObjectIdentifier, typeName: String, gcTime: Duration, observers: Int = 0) {
    self.valueType = valueType
    self.typeName = typeName
    self.gcTime = gcTime
    self.observers = observers
  }

  /// The entry's phase.
  var phase: Phase {
    if inFlight != nil { return .fetching }
    return value == nil ? .empty : .cached
  }

  /// Whether nothing keeps the entry: no observer, no fetch in flight.
  var isCollectable: Bool { observers == 0 && inFlight == nil }

  private var collection: Collection {
    isCollectable ? .schedule(after: gcTime) : .cancel
  }

  // MARK: - Events

  /// A caller wants values of `type` (with `gcTime`): the entry switches to that type if it
  /// holds no value and no fetch, and keeps the longest gc time asked for.
  ///
  /// - Returns: `false` if the entry holds a value or a fetch of another type.
  mutating func adopt(
    valueType type: ObjectIdentifier, typeName name: @autoclosure () -> String,
    gcTime time: Duration
  )
    -> Bool
  {
    if type != valueType {
      guard value == nil, inFlight == nil else { return false }
      valueType = type
      typeName = name()
    }
    gcTime = max(gcTime, time)
    return true
  }

  /// A caller asks for the value.
  mutating func requestFetch(forced: Bool, staleTime: Duration, now: Duration) -> FetchDecision {
    if !forced, let value, let updatedAt {
      return .cached(value, isFresh: now - updatedAt < staleTime, updatedAt: updatedAt)
    }
    if let inFlight {
      self.inFlight?.joined += 1
      return .join(inFlight.fetch, id: inFlight.id)
    }
    return .start
  }

  /// The owner started the fetch a ``requestFetch(forced:staleTime:now:)`` asked for.
  mutating func didStart(id: Int, fetch: Fetch) -> Collection {
    precondition(inFlight == nil, "started fetch \(id) while fetch \(inFlight!.id) runs")
    inFlight = InFlight(id: id, fetch: fetch)
    return collection
  }

  /// Fetch `id` finished with `result`.
  mutating func finish(id: Int, result: Result<any Sendable, any Error>, now: Duration)
    -> (Completion, Collection)
  {
    guard let running = inFlight, running.id == id else { return (.ignored, collection) }
    inFlight = nil
    guard !running.isInvalidated else { return (.discarded, collection) }
    switch result {
    case .success(let fetched):
      value = fetched
      error = nil
      updatedAt = now
    case .failure(let failure):
      // NB: a failed refresh keeps the data it could not replace.
      error = failure
    }
    return (.stored, collection)
  }

  /// The app stored `newValue` as if fetched `now` (`setQueryData`): notify the observers.
  mutating func set(_ newValue: any Sendable, now: Duration) -> Collection {
    value = newValue
    error = nil
    updatedAt = now
    return collection
  }

  /// The app changed the cached value in place (a patch after a local change): notify the
  /// observers. The value keeps its age (a patch is not a fetch) and the error of the last
  /// fetch, if any.
  ///
  /// - Precondition: A value is cached and no fetch runs: the owner invalidates instead, since
  ///   the fetch's result could predate the change and overwrite the patch.
  mutating func patch(_ newValue: any Sendable) -> Collection {
    precondition(
      value != nil && inFlight == nil,
      "patched an entry in phase \(phase) (value: \(value != nil), fetch: \(inFlight?.id ?? -1))")
    value = newValue
    return collection
  }

  /// The entry was invalidated: its data goes, and a fetch in flight will not be cached.
  mutating func invalidate() -> Collection {
    value = nil
    error = nil
    updatedAt = nil
    inFlight?.isInvalidated = true
    return collection
  }

  /// The fetch in flight is cancelled (`cancelQueries`).
  ///
  /// - Returns: The fetch to cancel (its callers are let go at once), or `nil` if none ran.
  mutating func cancel() -> (Fetch?, Collection) {
    let cancelled = inFlight?.fetch
    inFlight = nil
    return (cancelled, collection)
  }

  /// An observer started watching the entry: it is kept.
  mutating func observerAdded() -> Collection {
    observers += 1
    return collection
  }

  /// An observer stopped watching the entry.
  mutating func observerRemoved() -> Collection {
    precondition(observers > 0, "an observer left an entry with none (phase \(phase))")
    observers -= 1
    return collection
  }

  /// The gc timer fired.
  ///
  /// - Returns: Whether the owner removes the entry now (it is still collectable).
  func collectionIsDue() -> Bool {
    isCollectable
  }
}
