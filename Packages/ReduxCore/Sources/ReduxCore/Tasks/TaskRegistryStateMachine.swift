/// The bookkeeping of a ``TaskManager`` as a pure state machine.
///
/// A task is first *reserved* (it gets a token and, if it has an id, takes that id over from
/// any live task), then *attached* once its handle exists, and *finished* when its body ends.
/// The two-step start lets the owner create the task outside the lock; every interleaving of
/// `attach`, `finish` and `cancel` is a transition here.
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
    /// Start the task under `token`; cancel `replaced`, the live task that had the same id.
    case start(token: Token, replaced: Handle?)
    /// The registry is shut down: do not start the task.
    case refused
  }

  private var nextToken: Token = 0
  private var slots: [Token: Slot] = [:]
  private var liveTokens: [Key: Token] = [:]
  private var idleWaiters: [Waiter] = []
  private(set) var isShutdown = false

  /// The number of tasks whose bodies have not ended, including cancelled ones still unwinding.
  ///
  /// NB: kept as a count rather than derived from `slots`, since every `finish` reads it: a
  /// derived count made ending n tasks O(n²).
  private(set) var runningCount = 0

  /// Whether a live (started, not cancelled, not replaced, not finished) task has this id.
  func isRunning(key: Key) -> Bool {
    liveTokens[key] != nil
  }

  mutating func reserve(key: Key?) -> Reservation {
    guard !isShutdown else { return .refused }
    let token = nextToken
    nextToken += 1
    runningCount += 1
    slots[token] = .reserved(key: key, cancelled: false)
    guard let key else { return .start(token: token, replaced: nil) }
    guard let previous = liveTokens.updateValue(token, forKey: key) else {
      return .start(token: token, replaced: nil)
    }
    return .start(token: token, replaced: detach(previous))
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
      // NB: only drop the id if it still names this task; a replacement may have taken it.
      if let key, liveTokens[key] == token { liveTokens[key] = nil }
    case .finishedBeforeAttach, nil:
      preconditionFailure("Task \(token) finished twice (slot \(String(describing: slots[token])))")
    }
    runningCount -= 1
    return takeWaitersIfIdle()
  }

  /// Cancels the live task with this id, if any. Returns its handle to cancel.
  mutating func cancel(key: Key) -> Handle? {
    guard let token = liveTokens.removeValue(forKey: key) else { return nil }
    return detach(token)
  }

  /// Cancels every task. Returns their handles to cancel.
  mutating func cancelAll() -> [Handle] {
    liveTokens = [:]
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
