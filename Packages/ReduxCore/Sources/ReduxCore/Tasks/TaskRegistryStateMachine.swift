/// The bookkeeping of a ``TaskManager`` as a pure state machine.
///
/// A task is first *reserved* (it gets a token and, if it has an id, takes that id over from
/// any live task), then *attached* once its handle exists, and *finished* when its body ends.
/// The two-step start lets the owner create the task outside the lock; every interleaving of
/// `attach`, `finish` and `cancel` is a transition here.
///
/// A task with an id either takes the id over (cancelling every live task that has it) or, under
/// a limit, shares it with at most `limit - 1` others (``AdmissionPolicy/limit(_:)``).
struct TaskRegistryStateMachine<Key: Hashable, Handle, Waiter> {
  typealias Token = UInt64

  enum Slot {
    /// Reserved, no handle yet. `cancelled` records a cancel that arrived before the handle.
    case reserved(key: Key?, cancelled: Bool)
    case running(Handle, key: Key?)
    /// The body ended before its handle was attached.
    case finishedBeforeAttach
  }

  enum Reservation {
    /// Start the task under `token`; cancel `replaced`, the live tasks that had the same id.
    case start(token: Token, replaced: [Handle])
    /// The registry is shut down: do not start the task.
    case refused
    /// `limit` tasks with this id are live already: do not start the task.
    case limited(UInt)
  }

  private var nextToken: Token = 0
  private var slots: [Token: Slot] = [:]
  /// The live task that took its id over, by id.
  private var liveTokens: [Key: Token] = [:]
  /// The live tasks that share their id under a limit, by id, oldest first.
  private var sharedTokens: [Key: [Token]] = [:]
  private var idleWaiters: [Waiter] = []
  private(set) var isShutdown = false

  /// The number of tasks whose bodies have not ended, including cancelled ones still unwinding.
  ///
  /// NB: kept as a count rather than derived from `slots`, since every `finish` reads it: a
  /// derived count made ending n tasks O(n²).
  private(set) var runningCount = 0

  /// The capacities of the dictionaries of tasks and of ids: after many tasks end, they shrink
  /// back (a Swift dictionary keeps its capacity after removals).
  var capacities: (slots: Int, liveTokens: Int) {
    (slots.capacity, liveTokens.capacity)
  }

  /// Whether a live (started, not cancelled, not replaced, not finished) task has this id.
  func isRunning(key: Key) -> Bool {
    liveCount(key: key) > 0
  }

  /// The number of live tasks with this id: one at most, unless they share it under a limit.
  func liveCount(key: Key) -> Int {
    (liveTokens[key] == nil ? 0 : 1) + (sharedTokens[key]?.count ?? 0)
  }

  /// Reserves a task.
  ///
  /// - Parameters:
  ///   - key: The task's id, or `nil` for an anonymous task.
  ///   - limit: `nil`: the task takes the id over, and the live tasks with it are cancelled.
  ///     A number: the task shares the id with the live ones, and is refused if `limit` of them
  ///     are live already (`0` is no limit).
  mutating func reserve(key: Key?, limit: UInt? = nil) -> Reservation {
    guard !isShutdown else { return .refused }
    if let key, let limit, limit > 0, liveCount(key: key) >= limit { return .limited(limit) }
    let token = nextToken
    nextToken += 1
    runningCount += 1
    slots[token] = .reserved(key: key, cancelled: false)
    guard let key else { return .start(token: token, replaced: []) }
    guard limit == nil else {
      sharedTokens[key, default: []].append(token)
      return .start(token: token, replaced: [])
    }
    var replaced = takeSharedTokens(key: key).compactMap { detach($0) }
    if let previous = liveTokens.updateValue(token, forKey: key), let handle = detach(previous) {
      replaced.append(handle)
    }
    return .start(token: token, replaced: replaced)
  }

  /// Records the handle of a reserved task. Returns the handle again if it must be cancelled
  /// at once (it was cancelled, replaced, or the registry shut down before it was attached).
  mutating func attach(_ handle: Handle, token: Token) -> Handle? {
    switch slots[token] {
    case .reserved(let key, let cancelled):
      slots[token] = .running(handle, key: key)
      return cancelled ? handle : nil
    case .finishedBeforeAttach:
      slots[token] = nil
      slots.releaseCapacityIfSparse()
      return nil
    case .running, nil:
      preconditionFailure("Attached task \(token) twice (slot \(String(describing: slots[token])))")
    }
  }

  /// Records that a task body ended. Returns the waiters to resume if no task is left.
  mutating func finish(token: Token) -> [Waiter] {
    switch slots[token] {
    case .reserved:
      slots[token] = .finishedBeforeAttach
    case .running(_, let key):
      slots[token] = nil
      slots.releaseCapacityIfSparse()
      if let key { forget(token, key: key) }
    case .finishedBeforeAttach, nil:
      preconditionFailure("Task \(token) finished twice (slot \(String(describing: slots[token])))")
    }
    runningCount -= 1
    return takeWaitersIfIdle()
  }

  /// Cancels the live tasks with this id, if any. Returns their handles to cancel.
  mutating func cancel(key: Key) -> [Handle] {
    var handles = takeSharedTokens(key: key).compactMap { detach($0) }
    if let token = liveTokens.removeValue(forKey: key) {
      liveTokens.releaseCapacityIfSparse()
      if let handle = detach(token) { handles.append(handle) }
    }
    return handles
  }

  /// Cancels every task. Returns their handles to cancel.
  mutating func cancelAll() -> [Handle] {
    liveTokens = [:]
    sharedTokens = [:]
    var handles: [Handle] = []
    for token in Array(slots.keys) {
      if let handle = detach(token) { handles.append(handle) }
    }
    return handles
  }

  /// Cancels every task and refuses new ones from now on.
  mutating func shutdown() -> [Handle] {
    isShutdown = true
    return cancelAll()
  }

  /// Registers a waiter for "no task running". Returns `false` if none is running now.
  mutating func waitForIdle(_ waiter: Waiter) -> Bool {
    guard runningCount > 0 else { return false }
    idleWaiters.append(waiter)
    return true
  }

  /// Drops the id of a task that ended, if it still names this task (a replacement may have
  /// taken it, or a cancel dropped it).
  private mutating func forget(_ token: Token, key: Key) {
    if liveTokens[key] == token {
      liveTokens[key] = nil
      liveTokens.releaseCapacityIfSparse()
    } else if var shared = sharedTokens[key], let index = shared.firstIndex(of: token) {
      shared.remove(at: index)
      sharedTokens[key] = shared.isEmpty ? nil : shared
      if shared.isEmpty { sharedTokens.releaseCapacityIfSparse() }
    }
  }

  /// Removes the tokens of the tasks sharing this id.
  private mutating func takeSharedTokens(key: Key) -> [Token] {
    guard !sharedTokens.isEmpty, let shared = sharedTokens.removeValue(forKey: key) else {
      return []
    }
    sharedTokens.releaseCapacityIfSparse()
    return shared
  }

  /// Marks the task as cancelled and returns its handle if it has one.
  private mutating func detach(_ token: Token) -> Handle? {
    switch slots[token] {
    case .reserved(let key, _):
      slots[token] = .reserved(key: key, cancelled: true)
      return nil
    case .running(let handle, _):
      return handle
    case .finishedBeforeAttach, nil:
      return nil
    }
  }

  private mutating func takeWaitersIfIdle() -> [Waiter] {
    guard runningCount == 0 else { return [] }
    defer { idleWaiters = [] }
    return idleWaiters
  }
}

extension Dictionary {
  /// Rebuilds the dictionary to fit its elements when they fill less than a quarter of its
  /// capacity, which a Swift dictionary otherwise keeps after removals: a manager that ran 100k
  /// timers at once would go on holding their buckets once they ended.
  ///
  /// Call it after a removal. A rebuilt dictionary's capacity is less than 2⅔ times its count
  /// (Swift fills buckets to ¾), so a third of its elements must go before the next rebuild:
  /// the copies cost O(1) amortized per removal.
  ///
  /// - Parameter minimumCapacity: Below this capacity nothing is rebuilt (a small dictionary's
  ///   buckets cost less than the copies).
  /// - Complexity: O(1), or O(*n*) when it rebuilds (*n* the number of elements).
  fileprivate mutating func releaseCapacityIfSparse(minimumCapacity: Int = 64) {
    guard capacity > minimumCapacity, count < capacity / 4 else { return }
    guard !isEmpty else {
      self = [:]
      return
    }
    var rebuilt = Dictionary(minimumCapacity: count)
    for (key, value) in self { rebuilt[key] = value }
    self = rebuilt
  }
}
