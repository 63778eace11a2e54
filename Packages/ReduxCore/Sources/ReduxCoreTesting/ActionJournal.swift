import ReduxCore
import Synchronization

/// What a ``TestStore``'s recording middleware saw: the actions the pipeline processed that the
/// test did not send, in order, and how far the test has received them.
@MainActor
final class ActionJournal<State: ReduxState, Action: ReduxAction> {
  private var dispatched: [Action] = []
  private var received = 0
  /// Sent by the test and not yet seen by the middleware: not the test's to receive.
  private var sent: [Action] = []
  private var version = 0
  private var waiters: [CheckedContinuation<Void, Never>] = []
  private(set) var isIdle = false
  /// The unreceived actions, described, for the test store's deinit, which runs off the main
  /// actor (a test's task-locals, which Swift Testing needs to attribute an issue, are not
  /// available in an isolated deinit).
  nonisolated let unreceivedDescriptions = Mutex<[String]>([])

  /// The recording middleware; it runs first and forwards every action.
  func middleware() -> AnyMiddleware<State, Action> {
    AnyMiddleware(id: "TestStore") { [weak self] context in
      self?.record(context.action)
      context.next()
    }
  }

  /// Dispatched actions not received yet.
  var unreceived: ArraySlice<Action> { dispatched[received...] }

  /// The test is about to send `action`: the middleware will see it, and it is not one to
  /// receive.
  func willSend(_ action: Action) {
    sent.append(action)
  }

  /// The next dispatched action not received yet, now received.
  func takeNext() -> Action? {
    guard received < dispatched.count else { return nil }
    defer {
      received += 1
      describeUnreceived()
    }
    return dispatched[received]
  }

  /// Marks every dispatched action received, after a failure reported them.
  func skipUnreceived() {
    received = dispatched.count
    describeUnreceived()
  }

  /// Starts a wait for the next action or for idleness; returns the version to wait after.
  func beginWait() -> Int {
    isIdle = false
    return version
  }

  /// Changes so far: an action recorded, or the store gone idle.
  var currentVersion: Int { version }

  /// Suspends until an action is recorded or the store goes idle, after `version`.
  func waitForChange(after version: Int) async {
    guard self.version == version else { return }
    await withCheckedContinuation { waiters.append($0) }
  }

  /// The store has nothing queued and no task running.
  func storeBecameIdle() {
    isIdle = true
    changed()
  }

  private func record(_ action: Action) {
    if let index = sent.firstIndex(of: action) {
      sent.remove(at: index)
    } else {
      dispatched.append(action)
      describeUnreceived()
    }
    changed()
  }

  private func describeUnreceived() {
    let descriptions = unreceived.map { "\($0)" }
    unreceivedDescriptions.withLock { $0 = descriptions }
  }

  private func changed() {
    version += 1
    let resumed = waiters
    waiters = []
    for waiter in resumed { waiter.resume() }
  }
}
