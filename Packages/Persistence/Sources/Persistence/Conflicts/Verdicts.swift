import Synchronization

/// Which changes of a delivery its first apply took, so that applying it again (a DevTools
/// replay, the snapshots of an undo history) takes the same ones, whatever the versions say by
/// then.
///
/// NB: a class, so that the copies of a delivery (in the action, in a recording) share it.
final class Verdicts: Sendable {
  private let applied = Mutex<[Bool]?>(nil)

  /// The verdicts, judged by `judge` the first time.
  func judge(_ count: Int, _ judge: () -> [Bool]) -> [Bool] {
    applied.withLock { applied in
      if let applied, applied.count == count { return applied }
      let judged = judge()
      applied = judged
      return judged
    }
  }

  func record(_ verdicts: [Bool]) {
    applied.withLock { $0 = verdicts }
  }

  var recorded: [Bool]? { applied.withLock { $0 } }
}
