/// The once-only flags of one pass through the pipeline: which contexts already called
/// `next()` or `complete()`.
///
/// Contexts are values that may be copied and may escape into tasks, so the flags live in this
/// shared object. The worker reuses one frame from action to action while no context escaped
/// (see ``DispatchWorker/prepareFrame()``), so a dispatch normally allocates nothing here.
@MainActor
@usableFromInline
final class DispatchFrame {
  // NB: no dynamic exclusivity checks (about 330 instructions per `consume`): the frame is
  // main-actor isolated, and no access to these fields spans a call that could reach them again.
  @exclusivity(unchecked) @usableFromInline var consumed: [Bool]
  @exclusivity(unchecked) @usableFromInline var isPristine = true
  /// The first error raised in this pass, and the resolver that handled it (`nil`: none did).
  @usableFromInline var failure: (error: any Error, origin: Origin, handledBy: String?)?

  @usableFromInline
  init(flagCount: Int) {
    consumed = Array(repeating: false, count: flagCount)
  }

  /// Sets flag `index`; returns `false` if it was already set.
  @inlinable
  func consume(_ index: Int) -> Bool {
    if consumed[index] { return false }
    consumed[index] = true
    isPristine = false
    return true
  }

  func recordFailure(_ error: any Error, origin: Origin, handledBy: String?) {
    failure = (error, origin, handledBy)
    isPristine = false
  }

  @inlinable
  func reset() {
    guard !isPristine else { return }
    for index in consumed.indices { consumed[index] = false }
    failure = nil
    isPristine = true
  }
}
