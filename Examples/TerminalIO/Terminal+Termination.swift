import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension Terminal {
  /// The signal sources of ``restoreOnTermination(signals:)``, kept for the life of the process.
  private static let terminationSources = Mutex<[Int32: any DispatchSourceSignal]>([:])

  /// Restores the terminal when a termination signal arrives, then lets the signal end the
  /// process as it would have.
  ///
  /// For an app that has no termination handler of its own. An app that already handles these
  /// signals (Persistence's `shutdownOnTermination`, which saves before exiting) calls
  /// ``restore()`` in that handler instead: two handlers of one signal would race to exit.
  ///
  /// In raw mode Ctrl-C is a key, not `SIGINT`, so these signals come from elsewhere: `kill`, a
  /// closed terminal window (`SIGHUP`), a service manager. Each is handled on a Dispatch queue,
  /// outside any signal handler, so ``restore()`` can take its lock; the process then ends with
  /// the same signal, so its parent sees the usual status (130 for `SIGINT` in a shell).
  ///
  /// - Parameter signals: The signals to handle; `SIGHUP` (1), `SIGINT` (2) and `SIGTERM` (15)
  ///   by default. A signal already handled by an earlier call is left as it is.
  public static func restoreOnTermination(signals: [Int32] = [1, 2, 15]) {
    restoreOnTermination(signals: signals, onRegistered: nil)
  }

  /// ``restoreOnTermination(signals:)``, calling `onRegistered` once each new source watches
  /// its signal: a test sends the signal only then.
  static func restoreOnTermination(signals: [Int32], onRegistered: (@Sendable () -> Void)?) {
    terminationSources.withLock { sources in
      for signalNumber in signals where sources[signalNumber] == nil {
        // NB: the default action of these signals ends the process before Dispatch sees them;
        // ignored, they reach only the source.
        _ = signal(signalNumber, SIG_IGN)
        let source = DispatchSource.makeSignalSource(
          signal: signalNumber, queue: DispatchQueue(label: "TerminalIO.termination"))
        source.setEventHandler {
          Terminal.restore()
          _ = signal(signalNumber, SIG_DFL)
          _ = kill(getpid(), signalNumber)
        }
        if let onRegistered { source.setRegistrationHandler(handler: onRegistered) }
        source.resume()
        sources[signalNumber] = source
      }
    }
  }
}
