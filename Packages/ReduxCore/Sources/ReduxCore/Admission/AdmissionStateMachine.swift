/// Admission under per-key ``AdmissionPolicy``s as a pure state machine: offers, deadlines and
/// ends go in; what its owner must do comes out as an ``Decision``. Time is a `Duration` on
/// the owner's clock (a ``ClockReader``'s `now()`), so tables of (event at t → decision) test it
/// without a clock.
///
/// Its owners: the store's dispatcher (tickets are queued actions, keys their ids) and
/// ``TaskManager`` (tickets are tasks, keys their ids). The owner admits, supersedes or refuses
/// as told, and arms one timer per key at the time it is told, which calls
/// ``deadlineReached(_:policy:now:)``.
@usableFromInline
struct AdmissionStateMachine<Key: Hashable, Ticket: Hashable> {
  /// What the owner must do after an event. Every field may be set at once: an offer under
  /// `latest` admits the new ticket and supersedes the old one.
  @usableFromInline
  struct Decision: Equatable {
    /// Admit this ticket now (queue the action; start the task).
    @usableFromInline var admitted: Ticket?
    /// This earlier ticket will never be admitted (or, admitted under `latest`, is replaced):
    /// tell its caller.
    @usableFromInline var superseded: Ticket?
    /// The offered ticket is refused, for this reason.
    @usableFromInline var refused: Refusal?
    /// Arm the key's timer for this time, replacing an armed one.
    @usableFromInline var armAt: Duration?

    @inlinable
    init(
      admitted: Ticket? = nil, superseded: Ticket? = nil, refused: Refusal? = nil,
      armAt: Duration? = nil
    ) {
      self.admitted = admitted
      self.superseded = superseded
      self.refused = refused
      self.armAt = armAt
    }
  }

  @usableFromInline
  enum Refusal: Equatable {
    /// `limit(n)`: `n` were already pending.
    case limited(UInt)
    /// `throttle` without `trailing`: one was admitted less than an interval ago.
    case throttled(Duration)
  }

  /// One key's state.
  @usableFromInline
  struct Slot {
    /// `limit` and `latest`: the tickets admitted and not ended, oldest first.
    @usableFromInline var admitted: [Ticket] = []
    /// `debounce` and `throttle`: the ticket waiting for the deadline.
    @usableFromInline var held: Ticket?
    /// `debounce`: when the first ticket of the current run was held (for `maxWait`).
    @usableFromInline var firstHeldAt: Duration?
    /// `debounce`: when the held ticket goes; `throttle`: when the current window ends.
    @usableFromInline var deadline: Duration?

    @inlinable init() {}

    @inlinable var isEmpty: Bool { admitted.isEmpty && held == nil && deadline == nil }
  }

  @usableFromInline var slots: [Key: Slot] = [:]

  @inlinable init() {}

  /// A ticket arrives for `key` at `now`.
  ///
  /// - Complexity: O(1), but `limit(n)` with `n` > 1 and ``ended(_:key:)`` are O(*n*).
  @inlinable
  mutating func offer(_ ticket: Ticket, key: Key, policy: AdmissionPolicy, now: Duration)
    -> Decision
  {
    switch policy {
    case .limit(0):
      return Decision(admitted: ticket)
    case .limit(let limit):
      var slot = slots[key, default: Slot()]
      guard slot.admitted.count < limit else { return Decision(refused: .limited(limit)) }
      slot.admitted.append(ticket)
      slots[key] = slot
      return Decision(admitted: ticket)
    case .latest:
      var slot = slots[key, default: Slot()]
      let replaced = slot.admitted.last
      slot.admitted = [ticket]
      slots[key] = slot
      return Decision(admitted: ticket, superseded: replaced)
    case .debounce(let interval, let maxWait):
      var slot = slots[key, default: Slot()]
      let replaced = slot.held
      let first = slot.firstHeldAt ?? now
      var deadline = now + max(interval, .zero)
      if let maxWait { deadline = min(deadline, first + max(maxWait, .zero)) }
      slot.held = ticket
      slot.firstHeldAt = first
      slot.deadline = deadline
      slots[key] = slot
      return Decision(superseded: replaced, armAt: deadline)
    case .throttle(let interval, let leading, let trailing):
      var slot = slots[key, default: Slot()]
      let isWindowOpen = slot.deadline.map { now < $0 } ?? false
      if !isWindowOpen {
        slot.deadline = now + max(interval, .zero)
        if leading || !trailing {
          // NB: the window's end is read when the next offer comes; no timer needed yet.
          slots[key] = slot
          return Decision(admitted: ticket)
        }
        slot.held = ticket
        slots[key] = slot
        return Decision(armAt: slot.deadline)
      }
      guard trailing else { return Decision(refused: .throttled(interval)) }
      let replaced = slot.held
      slot.held = ticket
      slots[key] = slot
      // NB: the first ticket held in a window arms the timer for the window's end.
      return Decision(superseded: replaced, armAt: replaced == nil ? slot.deadline : nil)
    }
  }

  /// The timer armed for `key` fired at `now`.
  ///
  /// A timer that fires early (or late, after the key's state moved on) is harmless: the
  /// decision then re-arms for the real deadline, or does nothing.
  @inlinable
  mutating func deadlineReached(_ key: Key, policy: AdmissionPolicy, now: Duration) -> Decision {
    guard var slot = slots[key], let deadline = slot.deadline else { return Decision() }
    guard now >= deadline else {
      return slot.held == nil ? Decision() : Decision(armAt: deadline)
    }
    switch policy {
    case .limit, .latest:
      return Decision()
    case .debounce:
      let released = slot.held
      slots[key] = nil
      return Decision(admitted: released)
    case .throttle(let interval, _, _):
      guard let released = slot.held else {
        slots[key] = nil
        return Decision()
      }
      // NB: a ticket released at a window's end opens the next window.
      slot.held = nil
      slot.deadline = now + max(interval, .zero)
      slots[key] = slot
      return Decision(admitted: released)
    }
  }

  /// An admitted ticket of `key` ended (its action was processed; its task finished): under
  /// `limit` and `latest` it no longer counts.
  ///
  /// - Complexity: O(*n*), *n* the number of tickets of `key` admitted and not ended.
  @inlinable
  mutating func ended(_ ticket: Ticket, key: Key) {
    guard var slot = slots[key], let index = slot.admitted.firstIndex(of: ticket) else { return }
    slot.admitted.remove(at: index)
    slots[key] = slot.isEmpty ? nil : slot
  }

  /// Withdraws the ticket held for `key` (its task was cancelled): it will never be admitted.
  /// A throttle's window stays open, so a cancel does not let the next one through early.
  ///
  /// - Returns: The withdrawn ticket, if one was held.
  mutating func withdraw(_ key: Key) -> Ticket? {
    guard var slot = slots[key], let ticket = slot.held else { return nil }
    slot.held = nil
    if slot.admitted.isEmpty, slot.firstHeldAt != nil {
      // NB: a debounce with nothing held has nothing to wait for.
      slots[key] = nil
    } else {
      slots[key] = slot
    }
    return ticket
  }

  /// Forgets everything; returns the tickets that were held and will never be admitted.
  ///
  /// - Complexity: O(*k*), *k* the number of keys.
  mutating func shutdown() -> [Ticket] {
    defer { slots = [:] }
    return slots.values.compactMap(\.held)
  }
}
