public import Synchronization

/// The id of the timer that releases the dispatches an id's policy holds; a type of its own, so
/// that no middleware task id can replace it.
struct AdmissionTimer: Hashable, Sendable {
  let actionID: String
}

extension DispatchWorker {
  /// Admits an action under `policy`: at once, held until a deadline, or refused. A dispatch
  /// the new one supersedes is reported to its caller and `onLog`.
  ///
  /// - Complexity: O(1) for `debounce` and `throttle`; O(*n*) for `latest` when it replaces a
  ///   queued dispatch (*n* queued actions) and for `limit(k)` (*k*).
  @inlinable @discardableResult
  nonisolated func enqueue(
    _ action: Action, policy: AdmissionPolicy, completion: Completion?,
    source: SourceCode = .caller
  ) -> DispatchError? {
    if case .limit(let limit) = policy {
      return enqueueAdmitted(action, limit: limit, completion: completion, source: source)
    }
    let id = action.id
    let now = clock.now()
    var superseded: Pending?
    var armAt: Duration?
    var isCounted = true
    let refusal: DispatchError? = admission.withLock { book in
      // NB: checked under this lock, which shutdown() takes after the task runtime's: a
      // dispatch held here after that could never be released or settled.
      guard !tasks.isShutdown else { return .shutdown }
      let ticket = book.issueTicket()
      let isLatest = if case .latest = policy { true } else { false }
      let pending = Pending(
        action: action, limited: false, completion: completion, ticket: ticket,
        endsAdmission: isLatest, source: source)
      book.policies[id] = policy
      let decision = book.machine.offer(ticket, key: id, policy: policy, now: now)
      armAt = decision.armAt
      if let old = decision.superseded {
        // NB: not found when it is being processed already: then it runs, and is not reported.
        superseded =
          book.held.removeValue(forKey: old) ?? dispatcher.removeFirst { $0.ticket == old }
        book.admittedIDs[old] = nil
      }
      if let refused = decision.refused {
        book.forgetIfIdle(id)
        switch refused {
        case .limited(let limit): return .rateLimited(actionID: id, limit: limit)
        case .throttled(let interval): return .throttled(actionID: id, interval: interval)
        }
      }
      guard decision.admitted == ticket else {
        book.held[ticket] = pending
        return nil
      }
      if isLatest { book.admittedIDs[ticket] = id }
      let refusal = admit(pending, id: id, book: &book)
      isCounted = refusal == nil
      return refusal
    }
    if let armAt { arm(id, at: armAt) }
    if let superseded { settle(superseded, .superseded(actionID: id)) }
    guard let refusal else { return nil }
    if isCounted {
      dispatcher.countRefusal()
      reportRefusal(of: action, refusal)
    }
    return refusal
  }

  /// Queues an admitted dispatch; if the queue refuses it, the policy forgets it (the queue
  /// counted and the caller reports the refusal).
  @inlinable
  nonisolated func admit(_ pending: Pending, id: String, book: inout DispatchAdmission<Pending>)
    -> DispatchError?
  {
    switch dispatcher.enqueue(pending, id: "", limit: 0) {
    case .accepted(let scheduleDrain):
      if scheduleDrain { self.scheduleDrain() }
      return nil
    case .refused(let reason):
      book.machine.ended(pending.ticket, key: id)
      book.admittedIDs[pending.ticket] = nil
      book.forgetIfIdle(id)
      return reason
    }
  }

  /// Arms the timer of `id` for `deadline` on the task runtime (replacing an armed one), so that
  /// it is cancelled with the store.
  @usableFromInline
  nonisolated func arm(_ id: String, at deadline: Duration) {
    let sleep = clock.sleep(for: deadline - clock.now())
    tasks.run(id: AdmissionTimer(actionID: id)) {
      try await sleep()
      self.deadlineReached(id)
    } onFailure: { _ in
    }
  }

  /// The timer of `id` fired: queues what its policy releases now.
  nonisolated func deadlineReached(_ id: String) {
    let now = clock.now()
    var armAt: Duration?
    var refused: (Pending, DispatchError)?
    admission.withLock { book in
      guard let policy = book.policies[id] else { return }
      let decision = book.machine.deadlineReached(id, policy: policy, now: now)
      armAt = decision.armAt
      if let ticket = decision.admitted, let pending = book.held.removeValue(forKey: ticket) {
        if let reason = admit(pending, id: id, book: &book) { refused = (pending, reason) }
      }
      book.forgetIfIdle(id)
    }
    if let armAt { arm(id, at: armAt) }
    if let (pending, reason) = refused {
      reportRefusal(of: pending.action, reason)
      settleCompletion(of: pending, reason)
    }
  }

  /// A dispatch a newer one replaced: counted, reported, and its caller told.
  @usableFromInline
  nonisolated func settle(_ pending: Pending, _ reason: DispatchError) {
    dispatcher.countRefusal()
    reportRefusal(of: pending.action, reason)
    settleCompletion(of: pending, reason)
  }

  /// Tells a waiting caller why its action never ran.
  nonisolated func settleCompletion(of pending: Pending, _ reason: DispatchError) {
    guard let completion = pending.completion else { return }
    let readOnly = self.readOnly
    Task { @MainActor in completion.refuse(reason, state: readOnly) }
  }

  /// An admitted dispatch that `latest` tracks was processed.
  @usableFromInline
  nonisolated func admissionEnded(_ ticket: Int) {
    admission.withLock { book in
      guard let id = book.admittedIDs.removeValue(forKey: ticket) else { return }
      book.machine.ended(ticket, key: id)
      book.forgetIfIdle(id)
    }
  }

  /// Forgets every policy's state; returns the dispatches held, oldest first, to discard.
  nonisolated func shutDownAdmission() -> [Pending] {
    admission.withLock { book in
      let held = book.machine.shutdown().compactMap { book.held[$0] }
      book = DispatchAdmission()
      return held.sorted { $0.ticket < $1.ticket }
    }
  }
}
