/// The admission of policy-governed dispatches (``AdmissionPolicy``), which the worker keeps
/// beside its queue: the state machine, the dispatches it holds until a deadline, and the
/// policy each id was last offered under.
///
/// NB: apart from the queue's lock, so that a dispatch without a policy never takes this one.
/// When both are taken, this one is taken first.
@usableFromInline
struct DispatchAdmission<Pending> {
  @usableFromInline var machine = AdmissionStateMachine<String, Int>()
  /// The next ticket; tickets start at 1, 0 meaning "no policy".
  @usableFromInline var nextTicket = 1
  @inlinable init() {}

  /// Dispatches held by `debounce` or `throttle` until their id's deadline.
  @usableFromInline var held: [Int: Pending] = [:]
  /// The ids of the admitted tickets that `latest` tracks until they are processed.
  @usableFromInline var admittedIDs: [Int: String] = [:]
  /// The policy each id with a slot in the machine was last offered under.
  @usableFromInline var policies: [String: AdmissionPolicy] = [:]

  /// Takes a ticket.
  @inlinable
  mutating func issueTicket() -> Int {
    defer { nextTicket += 1 }
    return nextTicket
  }

  /// Forgets an id whose slot the machine dropped.
  @inlinable
  mutating func forgetIfIdle(_ id: String) {
    if machine.slots[id] == nil { policies[id] = nil }
  }
}
