import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension Terminal {
  /// The terminal's new size each time it is resized (`SIGWINCH`), read on a Dispatch queue.
  ///
  /// Each `for await` loop makes its own signal source, cancelled when the loop ends (see
  /// ``TerminalStream``). The sequence does not start with the current size: read ``size`` for
  /// that. A burst of resizes (a window being dragged) can deliver the same size more than once;
  /// setting ``ScreenRenderer/size`` to an unchanged size does nothing.
  public static var resizes: TerminalStream<TerminalSize> {
    resizes(onRegistered: nil)
  }

  /// ``resizes``, calling `onRegistered` once each iteration's signal source is watching: a
  /// test raises `SIGWINCH` only then.
  static func resizes(onRegistered: (@Sendable () -> Void)?) -> TerminalStream<TerminalSize> {
    TerminalStream {
      // NB: only the newest size matters to a loop that fell behind.
      let (sizes, continuation) = AsyncStream.makeStream(
        of: TerminalSize.self, bufferingPolicy: .bufferingNewest(1))
      let source = ResizeSignalSource(onRegistered: onRegistered) {
        continuation.yield(TerminalSize.current())
      }
      continuation.onTermination = { _ in source.cancel() }
      return .init(elements: sizes, stop: { continuation.finish() })
    }
  }
}

/// A Dispatch signal source for `SIGWINCH`, wrapped so a `@Sendable` termination handler can
/// cancel it.
final class ResizeSignalSource: Sendable {
  /// The source, behind a lock because Dispatch's source types are not `Sendable`.
  private let source: Mutex<any DispatchSourceSignal>

  /// Starts watching `SIGWINCH`, calling `onResize` on a private queue for each signal.
  ///
  /// - Parameter onRegistered: Called once the source watches the signal.
  init(onRegistered: (@Sendable () -> Void)? = nil, onResize: @escaping @Sendable () -> Void) {
    // NB: a Dispatch signal source sees the signal whatever its disposition; SIGWINCH is
    // ignored by default, so nothing else needs changing for it.
    let signalSource = DispatchSource.makeSignalSource(
      signal: SIGWINCH, queue: DispatchQueue(label: "TerminalIO.resizes"))
    signalSource.setEventHandler(handler: onResize)
    if let onRegistered { signalSource.setRegistrationHandler(handler: onRegistered) }
    signalSource.resume()
    source = Mutex(signalSource)
  }

  /// Stops watching.
  func cancel() {
    source.withLock { $0.cancel() }
  }
}
