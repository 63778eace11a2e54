/// The once-only flags of one pass through the pipeline: which contexts already called
/// `next()` or `complete()`.
///
/// Contexts are values that may be copied and may escape into tasks, so the flags live in this
/// shared object. The worker reuses one frame from action to action while no context escaped
/// (see ``DispatchWorker/prepareFrame()``), so a dispatch normally allocates nothing here.
///
/// The frame also holds the worker, so that a context holds one reference instead of two (or
/// three, with a reducer's state): each context is made and destroyed once per stage and
/// action, and each reference it holds costs a retain and a release (perf-2026-11: retains
/// and releases were the largest cost of a dispatch left). The worker's spare frame closes a
/// cycle, which ``DispatchWorker/shutdown()`` breaks.
@MainActor
@usableFromInline
final class DispatchFrame {
  /// The worker that made this frame (a `DispatchWorker<State, Action>` of the contexts'
  /// types; see ``worker(as:)``).
  ///
  /// NB: not generic: a generic frame made the contexts that hold it copied and destroyed
  /// through value witnesses in the closures of another module (+300 instructions/action).
  @usableFromInline nonisolated let owner: any AnyObject & Sendable
  // NB: no dynamic exclusivity checks (about 330 instructions per `consume`): the frame is
  // main-actor isolated, and no access to these fields spans a call that could reach them again.
  /// Flags 0 ..< 64, one bit each: a pipeline rarely has more stages, and one word resets at
  /// once where an array of flags was walked after every action.
  @exclusivity(unchecked) @usableFromInline var flags: UInt64 = 0
  /// Flags 64 and up, 64 to a word; empty for most pipelines.
  @exclusivity(unchecked) @usableFromInline var moreFlags: [UInt64]
  @exclusivity(unchecked) @usableFromInline var hasFailure = false
  /// The first error raised in this pass, and the resolver that handled it (`nil`: none did).
  @usableFromInline var failure: (error: any Error, origin: Origin, handledBy: String?)?

  @usableFromInline
  init(owner: any AnyObject & Sendable, flagCount: Int) {
    self.owner = owner
    moreFlags = Array(repeating: 0, count: max(flagCount - 64 + 63, 0) / 64)
  }

  /// The worker that made this frame.
  ///
  /// Only a worker makes frames, with itself as the owner, and a context receives a frame of
  /// its own worker, whose types are the context's: the cast cannot fail.
  @inlinable
  nonisolated func worker<State, Action>(as _: DispatchWorker<State, Action>.Type)
    -> DispatchWorker<State, Action>
  {
    unsafeDowncast(owner, to: DispatchWorker<State, Action>.self)
  }

  /// Whether flag `index` is set.
  @inlinable
  func isConsumed(_ index: Int) -> Bool {
    index < 64
      ? flags & (1 &<< UInt64(index)) != 0
      : moreFlags[(index - 64) / 64] & (1 &<< UInt64(index % 64)) != 0
  }

  /// Sets flag `index`; returns `false` if it was already set.
  @inlinable @inline(__always)
  func consume(_ index: Int) -> Bool {
    if index < 64 {
      let bit: UInt64 = 1 &<< UInt64(index)
      if flags & bit != 0 { return false }
      flags |= bit
      return true
    }
    let bit: UInt64 = 1 &<< UInt64(index % 64)
    if moreFlags[(index - 64) / 64] & bit != 0 { return false }
    moreFlags[(index - 64) / 64] |= bit
    return true
  }

  func recordFailure(_ error: any Error, origin: Origin, handledBy: String?) {
    failure = (error, origin, handledBy)
    hasFailure = true
  }

  @inlinable
  func reset() {
    flags = 0
    if !moreFlags.isEmpty {
      for index in moreFlags.indices { moreFlags[index] = 0 }
    }
    if hasFailure {
      failure = nil
      hasFailure = false
    }
  }
}
