#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A pipe that wakes a reader thread waiting in `poll`, so a stream whose consumer went away
/// stops its thread instead of leaving it to steal the next bytes of the descriptor.
///
/// The reader thread polls ``readEnd`` next to the descriptor it reads; ``signal()`` makes it
/// readable. The pipe is closed only when the object goes away, once neither the reader thread
/// nor the stream's termination handler holds it, so ``signal()`` never writes to a closed
/// descriptor whose number the process may already have given to another file. That takes no
/// lock and no mutable state: a signal after the thread stopped only leaves a byte in a pipe that
/// is about to close.
final class WakeSignal: Sendable {
  /// The end the reader thread polls, or -1 when no pipe could be made (`poll` skips a negative
  /// descriptor: the reader then stops only at the end of its input).
  let readEnd: Int32

  /// The end ``signal()`` writes to, or -1 when no pipe could be made.
  private let writeEnd: Int32

  /// Makes the pipe, close-on-exec, with a non-blocking write end so ``signal()`` never waits.
  init() {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else {
      readEnd = -1
      writeEnd = -1
      return
    }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
    readEnd = ends[0]
    writeEnd = ends[1]
  }

  deinit {
    if readEnd >= 0 { close(readEnd) }
    if writeEnd >= 0 { close(writeEnd) }
  }

  /// Wakes the reader thread.
  func signal() {
    guard writeEnd >= 0 else { return }
    var byte: UInt8 = 1
    // NB: a full pipe already holds a wake-up, so a write that fails changes nothing.
    _ = write(writeEnd, &byte, 1)
  }
}
