import Observation
import ReduxCore
import ReduxCoreTesting
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Faults planted on purpose, so that `Scripts/sanitize.sh` proves each sanitizer still catches
/// what it is there for: a suppression file that hid real races, or a leak check switched off,
/// would pass every other test in silence.
///
/// They run only when `REDUXKIT_CANARY` names them (`race` under ThreadSanitizer, `leak` under
/// AddressSanitizer with LeakSanitizer); a normal run skips them. The script fails unless the
/// sanitizer reports each fault with the test's name in the stack.
enum Canary {
  /// The fault this run asks for, from `REDUXKIT_CANARY`.
  static var requested: String? {
    getenv("REDUXKIT_CANARY").map { String(cString: $0) }
  }
}

@Suite(.enabled(if: Canary.requested == "race", "a planted data race, for sanitize.sh only"))
@MainActor
struct PlantedRaceTests {
  /// A race in a reducer that runs behind `ActionRecorder.middleware`: a frame below the
  /// reducer's belongs to `ActionRecorder`, so a `race:ActionRecorderC` rule (which matches any
  /// frame of either stack) hid it.
  @Test func aRaceInAReducerBehindTheActionRecorderIsReported() async {
    let cell = RacyCell()
    let recorder = ActionRecorder<CanaryState, CanaryAction>()
    let racing = AnyReducer<CanaryState, CanaryAction>(id: "racing") { _ in
      cell.increment()
    }
    let store = Store(
      initialState: CanaryState(), middlewares: [recorder.middleware], reducers: [racing])
    let other = RacingThread(incrementing: cell)
    await store.dispatchWithResult(.poke)
    other.join()
    #expect(recorder.actions == [.poke])
    cell.deallocate()
  }

  /// A race in a middleware's task: async code, resumed by the task runtime on the main actor.
  @Test func aRaceInAMiddlewareTaskIsReported() async {
    let cell = RacyCell()
    let starter = AnyMiddleware<CanaryState, CanaryAction>(id: "starter") { context in
      context.task { _ in cell.increment() }
      context.next()
    }
    let store = Store(initialState: CanaryState(), middlewares: [starter])
    let other = RacingThread(incrementing: cell)
    await store.dispatchWithResult(.poke)
    await store.waitUntilIdle()
    other.join()
    cell.deallocate()
  }
}

@Suite(.enabled(if: Canary.requested == "leak", "a planted leak, for sanitize.sh only"))
struct PlantedLeakTests {
  /// An object that holds itself: LeakSanitizer reports it when the process exits.
  @Test func aReferenceCycleIsReportedAsALeak() {
    let node = Node()
    node.next = node
    #expect(node.next === node)
  }

  final class Node {
    var next: Node?
  }
}

/// One `Int` that two threads write without synchronization: the planted race. Its address
/// travels as an `Int`, which is `Sendable`, so the race needs no unchecked escape hatch.
struct RacyCell: Sendable {
  fileprivate let address: Int

  init() {
    let pointer = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    pointer.initialize(to: 0)
    address = Int(bitPattern: pointer)
  }

  fileprivate init(address: Int) {
    self.address = address
  }

  func increment() {
    UnsafeMutablePointer<Int>(bitPattern: address)!.pointee += 1
  }

  func deallocate() {
    UnsafeMutablePointer<Int>(bitPattern: address)!.deallocate()
  }
}

/// A POSIX thread that increments a cell once, the other side of each planted race, and then
/// waits, alive, until `join()`.
///
/// NB: not a task. Swift's executors hand jobs between threads with edges ThreadSanitizer sees
/// (the worker thread that ran a detached task may then start the store's drain task and hop
/// to the main actor), so a detached task's write was ordered before the reducer's in some
/// runs and the race went unreported. A thread started before the dispatch and released after
/// it shares no edge with the main actor in between. It stays alive until then because
/// ThreadSanitizer reports a race only if it can still restore the stack of the earlier
/// access: in the full suite, the trace of a thread that had already exited was recycled and
/// the race went unreported in every run.
struct RacingThread {
  #if canImport(Darwin)
    private var thread: pthread_t?
  #else
    private var thread = pthread_t()
  #endif
  /// The write end of the pipe the thread waits on after its write.
  private let release: Int32

  init(incrementing cell: RacyCell) {
    var ends: [Int32] = [0, 0]
    precondition(pipe(&ends) == 0, "pipe failed")
    release = ends[1]
    let arguments = UnsafeMutablePointer<Int>.allocate(capacity: 2)
    arguments[0] = cell.address
    arguments[1] = Int(ends[0])
    let started = pthread_create(
      &thread, nil,
      { argument in
        let arguments = UnsafeMutablePointer<Int>(bitPattern: Int(bitPattern: argument))!
        let (address, wait) = (arguments[0], Int32(arguments[1]))
        arguments.deallocate()
        RacyCell(address: address).increment()
        var byte: UInt8 = 0
        _ = read(wait, &byte, 1)
        close(wait)
        return nil
      },
      arguments)
    precondition(started == 0, "pthread_create failed: \(started)")
  }

  /// Lets the thread end, and waits for it.
  func join() {
    var byte: UInt8 = 1
    _ = write(release, &byte, 1)
    close(release)
    #if canImport(Darwin)
      pthread_join(thread!, nil)
    #else
      pthread_join(thread, nil)
    #endif
  }
}

@MainActor
@Observable
final class CanaryState: ReduxState {
  var count = 0
  var readOnly: ReadOnly { ReadOnly(self) }

  @MainActor
  @Observable
  final class ReadOnly: ReduxReadOnlyState {
    private let state: CanaryState
    init(_ state: CanaryState) { self.state = state }
  }
}

enum CanaryAction: ReduxAction {
  case poke

  var id: String { "poke" }
}
