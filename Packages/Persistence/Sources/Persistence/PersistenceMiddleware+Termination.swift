import Dispatch
import Logging

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension PersistenceMiddleware {
  /// Shuts the middleware down, flushing what is pending, when the process is asked to end
  /// (SIGINT: Ctrl-C; SIGTERM: `kill`, a service manager), then calls `finish`.
  ///
  /// Without it, Ctrl-C ends a terminal app at once and loses the changes waiting for the
  /// debounce, up to `maxWait` of work:
  ///
  /// ```swift
  /// await persistence.shutdownOnTermination { signal in
  ///   do {
  ///     try database.close()
  ///   } catch {
  ///     logger.error("closing the database failed: \(error)")
  ///   }
  ///   exit(128 + signal)
  /// }
  /// ```
  ///
  /// The shutdown runs on the main actor, like the flush timers: a main actor blocked by the
  /// app delays it. A signal that arrives while it runs is ignored; a failed shutdown is logged
  /// with the number of changes it could not persist, and `finish` is called all the same.
  ///
  /// - Parameters:
  ///   - signals: The signals to handle (`nil`: SIGINT and SIGTERM); their default action, the
  ///     end of the process, is off from now on.
  ///   - finish: Called on the main actor once the shutdown is over, with the signal received
  ///     (`nil`: end the process with the status a shell reports for the signal, 128 + signal).
  /// - Returns: Once the signals are handled, the handler, which stays active without being
  ///   kept until ``TerminationHandler/cancel()``.
  @discardableResult
  public func shutdownOnTermination(
    signals: [Int32]? = nil,
    then finish: (@MainActor (Int32) -> Void)? = nil
  ) async -> TerminationHandler {
    let finish = finish ?? { exit(128 + $0) }
    return await TerminationHandler(signals: signals ?? [SIGINT, SIGTERM]) { [weak self] signal in
      guard let self else { return finish(signal) }
      do {
        try await shutdown()
      } catch {
        logger.error(
          "shutdown on signal \(signal) failed, \(status.pendingCount) changes not persisted: \(error)"
        )
      }
      finish(signal)
    }
  }
}

/// Handles termination signals for ``PersistenceMiddleware/shutdownOnTermination(signals:then:)``.
///
/// It stays active until ``cancel()``, whether or not it is kept.
@MainActor
public final class TerminationHandler {
  private var sources: [any DispatchSourceSignal] = []
  private var isTerminating = false

  init(signals: [Int32], terminate: @escaping @MainActor (Int32) async -> Void) async {
    for number in signals {
      Self.ignoreUnlessCaught(number)
      let source = await Self.registeredSource(number) { [weak self] in
        Task { @MainActor in
          guard let self, !self.isTerminating else { return }
          self.isTerminating = true
          await terminate(number)
        }
      }
      sources.append(source)
    }
    retainedSelf = self
  }

  /// A source for signal `number` that calls `onSignal`, once the system has installed it.
  ///
  /// NB: nonisolated, so that its handlers are not inferred to run on the main actor: the
  /// source calls them on a global queue.
  private nonisolated static func registeredSource(
    _ number: Int32, onSignal: @escaping @Sendable () -> Void
  ) async -> any DispatchSourceSignal {
    let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
    source.setEventHandler(handler: onSignal)
    await withCheckedContinuation { registered in
      source.setRegistrationHandler { registered.resume() }
      source.resume()
    }
    return source
  }

  /// Turns off the default action of signal `number` (the end of the process) before its
  /// source exists, as swift-service-lifecycle does.
  ///
  /// NB: only when nothing catches it yet. On Linux, the first dispatch source of a signal
  /// installs libdispatch's own handler, once per process (a signal sent before that is lost:
  /// hence the wait for registration); ignoring the signal over that handler would hide it from
  /// every later source.
  private static func ignoreUnlessCaught(_ number: Int32) {
    #if canImport(Glibc) || canImport(Darwin)
      var current = sigaction()
      _ = sigaction(number, nil, &current)
      #if canImport(Darwin)
        let isDefault = current.__sigaction_u.__sa_handler == nil
      #else
        let isDefault = current.__sigaction_handler.sa_handler == nil
      #endif
      if isDefault { _ = signal(number, SIG_IGN) }
    #else
      _ = signal(number, SIG_IGN)
    #endif
  }

  /// Keeps the handler alive until ``cancel()``, so that the call site need not store it.
  private var retainedSelf: TerminationHandler?

  /// Stops handling the signals: they no longer shut the middleware down.
  ///
  /// They stay caught, and so no longer end the process: libdispatch keeps its handler for the
  /// life of the process, and restoring the default action would hide them from a later
  /// ``PersistenceMiddleware/shutdownOnTermination(signals:then:)``.
  public func cancel() {
    for source in sources { source.cancel() }
    sources = []
    retainedSelf = nil
  }
}
